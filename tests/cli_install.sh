#!/usr/bin/env bash
# make install / make uninstall into a temporary PREFIX: install builds what
# it installs, puts headers, tool, taskir.pc and the docs in place, an example
# compiles against the installed headers (through pkg-config when present),
# a failed install leaves the previous state, and uninstall removes it all.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0; skips=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
mk() { env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory "$@"; }
P=$tmp/prefix
files="include/taskir.h include/taskir_kernels.h include/taskir_proto.h include/taskir_layout.h
       include/taskir_exec.h bin/taskir share/pkgconfig/taskir.pc share/doc/taskir/LICENSE
       share/doc/taskir/README.md share/doc/taskir/CHANGELOG.md"

# install depends on the tool: from an empty build directory it builds it first
mk -n install PREFIX="$P" BUILD="$tmp/nobuild" > "$tmp/n" 2>&1
grep -q -- "-o $tmp/nobuild/taskir tools/taskir.c" "$tmp/n" && ok || bad "make install does not build the tool: $(head -c 300 "$tmp/n")"

# install: every file, the tool runs, the headers are the project's
if mk install PREFIX="$P" > "$tmp/log" 2>&1; then ok; else bad "make install failed: $(cat "$tmp/log")"; fi
for f in $files; do [ -f "$P/$f" ] && ok || bad "not installed: $f"; done
[ -x "$P/bin/taskir" ] && "$P/bin/taskir" --version | grep -q '^taskir [0-9]' && ok || bad "installed taskir does not run"
cmp -s "$P/include/taskir.h" taskir.h && cmp -s "$P/share/doc/taskir/LICENSE" LICENSE && ok || bad "installed files differ from the sources"
grep -q "^prefix=$P\$" "$P/share/pkgconfig/taskir.pc" && grep -q '^Libs: -lm$' "$P/share/pkgconfig/taskir.pc" && ok || bad "taskir.pc: $(cat "$P/share/pkgconfig/taskir.pc")"

# an example against the installed headers only
if command -v pkg-config > /dev/null; then
  cflags=$(PKG_CONFIG_PATH="$P/share/pkgconfig" pkg-config --cflags taskir | sed "s/ *$//")
  libs=$(PKG_CONFIG_PATH="$P/share/pkgconfig" pkg-config --libs taskir | sed "s/ *$//")
  [ "$cflags" = "-I$P/include" ] && [ "$libs" = "-lm" ] && ok || bad "pkg-config --cflags/--libs: '$cflags' '$libs'"
  v=$(PKG_CONFIG_PATH="$P/share/pkgconfig" pkg-config --modversion taskir)
  [ "$("$P/bin/taskir" --version)" = "taskir $v" ] && ok || bad "taskir.pc version $v differs from taskir --version"
else
  echo "skip: pkg-config missing (apt-get install pkgconf): taskir.pc not queried"; skips=$((skips + 1))
  cflags="-I$P/include"; libs="-lm"
fi
mkdir "$tmp/ex" && cp examples/build_program.c "$tmp/ex/"
# shellcheck disable=SC2086
if (cd "$tmp/ex" && ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic $cflags -o prog build_program.c $libs) > "$tmp/cc" 2>&1 &&
   "$tmp/ex/prog" > "$tmp/out" 2>&1; then ok; else bad "example against the installed headers: $(cat "$tmp/cc" "$tmp/out" 2>/dev/null | head -n 5)"; fi

# a failed install (the disk fills while writing the docs) keeps the previous
# install intact: its headers are restored, no new file is left behind
echo "/* an older taskir.h */" > "$tmp/old.h"
cp "$tmp/old.h" "$P/include/taskir.h"
rm -f "$P/share/doc/taskir/CHANGELOG.md"
ln -s /dev/full "$P/share/doc/taskir/CHANGELOG.md.taskir-new"
if mk install PREFIX="$P" > "$tmp/log" 2>&1; then bad "install onto a full disk succeeded"
else
  grep -q "nothing was installed" "$tmp/log" && ok || bad "failed install says nothing: $(cat "$tmp/log")"
  cmp -s "$P/include/taskir.h" "$tmp/old.h" && ok || bad "failed install did not restore the previous taskir.h"
  [ ! -e "$P/share/doc/taskir/CHANGELOG.md" ] && [ -z "$(find "$P" -name '*.taskir-old' -o -name '*.taskir-new' -type f)" ] \
    && ok || bad "failed install left files behind: $(find "$P" -name '*taskir-*')"
fi
rm -f "$P/share/doc/taskir/CHANGELOG.md.taskir-new"

# a failure before anything is written (bin is a file): nothing installed
P2=$tmp/prefix2; mkdir -p "$P2"; : > "$P2/bin"
if mk install PREFIX="$P2" > "$tmp/log" 2>&1; then bad "install with bin/ a file succeeded"
else [ "$(find "$P2" | sort | tr '\n' ' ')" = "$P2 $P2/bin " ] && ok || bad "failed install left: $(find "$P2")"; fi

# DESTDIR stages below a root; taskir.pc still names PREFIX
mk install DESTDIR="$tmp/stage" PREFIX=/opt/taskir > "$tmp/log" 2>&1 && [ -f "$tmp/stage/opt/taskir/include/taskir.h" ] \
  && grep -q '^prefix=/opt/taskir$' "$tmp/stage/opt/taskir/share/pkgconfig/taskir.pc" && ok || bad "DESTDIR install: $(cat "$tmp/log")"

# uninstall removes every installed file and the doc directory
mk install PREFIX="$P" > "$tmp/log" 2>&1 || bad "reinstall failed: $(cat "$tmp/log")"
if mk uninstall PREFIX="$P" > "$tmp/log" 2>&1; then ok; else bad "make uninstall failed: $(cat "$tmp/log")"; fi
left=$(find "$P" -type f -o -type l -o -type d -name taskir)
[ -z "$left" ] && ok || bad "left after uninstall: $left"
mk uninstall PREFIX="$P" > "$tmp/log" 2>&1 && ok || bad "uninstall of nothing failed: $(cat "$tmp/log")"

if [ "$skips" -ne 0 ]; then echo "$passes passed, $fails failed, $skips skipped"
else echo "$passes passed, $fails failed"; fi
[ "$fails" -eq 0 ]
