#!/bin/sh
# make install / make uninstall.
#   tools/install.sh install|uninstall DEST PREFIX [TOOL]
# DEST is $(DESTDIR)$(PREFIX), where files go; PREFIX is what taskir.pc
# says. Installs the headers (include/), the tool (bin/), taskir.pc
# (share/pkgconfig/) and LICENSE, README.md, CHANGELOG.md
# (share/doc/taskir/). All or nothing: a file it replaces is kept aside until
# every file is in place, and any failure restores the previous state.
set -u
mode=${1:-}; dest=${2:-}; prefix=${3:-}; tool=${4:-}
if [ -z "$dest" ] || [ -z "$prefix" ] || { [ "$mode" != install ] && [ "$mode" != uninstall ]; }; then
  echo "usage: $0 install|uninstall DEST PREFIX [TOOL]" >&2; exit 2
fi
cd "$(dirname "$0")/.." || exit 1
headers=$(ls taskir*.h)
docs="LICENSE README.md CHANGELOG.md"
docdir=share/doc/taskir
pcdir=share/pkgconfig

# every installed path, relative to DEST
targets() {
  for h in $headers; do echo "include/$h"; done
  [ -n "$tool" ] && echo "bin/$(basename "$tool")"
  echo "$pcdir/taskir.pc"
  for d in $docs; do echo "$docdir/$d"; done
}

if [ "$mode" = uninstall ]; then
  for t in $(targets); do
    if [ -e "$dest/$t" ]; then rm -f "$dest/$t" && echo "removed $dest/$t" || exit 1; fi
  done
  [ -d "$dest/$docdir" ] && { rmdir "$dest/$docdir" || exit 1; }
  exit 0
fi

for f in $headers $docs $tool; do
  [ -f "$f" ] || { echo "install: $f is missing (run make first)" >&2; exit 1; }
done
version=$(sed -n 's/^#define TASKIR_VERSION_STRING "\(.*\)"$/\1/p' taskir.h | head -n 1)
[ -n "$version" ] || { echo "install: no TASKIR_VERSION_STRING in taskir.h" >&2; exit 1; }

tmp=$(mktemp -d) || exit 1
cat > "$tmp/taskir.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include

Name: taskir
Description: Header-only C99 libraries for dataflow chip compilers: graph core, Task IR, protobuf codec, layout passes, kernels, executor
Version: $version
Cflags: -I\${includedir}
Libs: -lm
PC

placed=""   # installed so far (relative); a replaced file waits at PATH.taskir-old
made=""     # directories created
rollback() {
  for t in $placed; do
    rm -f "$dest/$t"
    [ -e "$dest/$t.taskir-old" ] && mv -f "$dest/$t.taskir-old" "$dest/$t"
  done
  for d in $made; do rmdir "$d" 2>/dev/null; done
  rm -rf "$tmp"
  echo "install: failed; nothing was installed" >&2
  exit 1
}
trap rollback INT TERM HUP

# directories, deepest created last (so rollback removes them deepest first)
for t in $(targets); do
  dir=$(dirname "$dest/$t"); new=""
  while [ ! -d "$dir" ]; do new="$dir $new"; dir=$(dirname "$dir"); done
  for d in $new; do
    mkdir "$d" 2>/dev/null || [ -d "$d" ] || { echo "install: cannot create $d" >&2; rollback; }
    made="$d $made"
  done
done

for t in $(targets); do
  case $t in
    include/*) src=${t#include/}; m=644 ;;
    bin/*) src=$tool; m=755 ;;
    */taskir.pc) src=$tmp/taskir.pc; m=644 ;;
    *) src=${t#"$docdir"/}; m=644 ;;
  esac
  if [ -e "$dest/$t" ]; then
    mv -f "$dest/$t" "$dest/$t.taskir-old" || { echo "install: cannot replace $dest/$t" >&2; rollback; }
  fi
  placed="$t $placed"
  cp "$src" "$dest/$t.taskir-new" && chmod "$m" "$dest/$t.taskir-new" && mv -f "$dest/$t.taskir-new" "$dest/$t" \
    || { rm -f "$dest/$t.taskir-new"; echo "install: cannot write $dest/$t" >&2; rollback; }
done
for t in $placed; do rm -f "$dest/$t.taskir-old"; done
rm -rf "$tmp"
for t in $(targets); do echo "installed $dest/$t"; done
