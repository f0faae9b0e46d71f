# taskir: `make` builds the tool and the examples, `make test` runs every test
# (plain, sanitized, reference-only kernels, C++ and C99 header checks, aarch64
# under qemu, Cortex-M4 compile, fuzzing), `make bench` runs the benchmarks.
CC      ?= cc
CXX     ?= g++
CLANG   ?= clang
PREFIX  ?= /usr/local
BUILD   ?= build
OPT     ?= -O2
TASKIR_FIXTURES ?= ../shared/fixtures
FUZZ_SECONDS ?= 60
export TASKIR_FIXTURES

HEADERS  := $(wildcard taskir*.h)
STD      := -std=c99
WARN     := -Wall -Wextra -Werror -pedantic
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TESTS    := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
KTESTS   := $(filter test_kernels%,$(TESTS))
FUZZERS  := $(patsubst tests/%.c,%,$(wildcard tests/fuzz_*.c))
BENCHES  := $(patsubst bench/%.c,%,$(wildcard bench/bench_*.c))
EXAMPLES := $(patsubst examples/%.c,%,$(wildcard examples/*.c))
TOOL     := $(if $(wildcard tools/taskir.c),$(BUILD)/taskir)

AARCH64_CC := $(shell command -v aarch64-linux-gnu-gcc 2>/dev/null)
QEMU       := $(shell command -v qemu-aarch64 2>/dev/null)
ARM_CC     := $(shell command -v arm-none-eabi-gcc 2>/dev/null)
HAVE_FUZZER := $(shell echo 'int LLVMFuzzerTestOneInput(const char*d,long n){(void)d;(void)n;return 0;}' \
                 | $(CLANG) -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null && echo yes)

all: $(TOOL) $(EXAMPLES:%=$(BUILD)/examples/%)

$(BUILD)/taskir: tools/taskir.c $(wildcard tools/*.h) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(OPT) -I. -o $@ $< -lm -pthread

$(BUILD)/examples/%: examples/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(OPT) -I. -o $@ $< -lm

$(BUILD)/test/%: tests/%.c $(HEADERS) tests/tt.h tests/tt_task.h tests/onnx_write.h tests/quant_chain.h tests/count_alloc.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(OPT) -g -I. -o $@ $< -lm -pthread

$(BUILD)/asan/%: tests/%.c $(HEADERS) tests/tt.h tests/tt_task.h tests/onnx_write.h tests/quant_chain.h tests/count_alloc.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O1 -g $(SAN) -I. -o $@ $< -lm -pthread

# The kernels as firmware builds them: reference paths, and (-ffreestanding,
# __STDC_HOSTED__ 0) taskir's own copy/fill loops instead of the C library's.
$(BUILD)/nosimd/%: tests/%.c $(HEADERS) tests/tt.h tests/tt_task.h tests/onnx_write.h tests/quant_chain.h tests/count_alloc.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(OPT) -g -DTASKIR_NO_SIMD -ffreestanding -I. -o $@ $< -lm

$(BUILD)/aarch64/%: tests/%.c $(HEADERS) tests/tt.h tests/tt_task.h tests/onnx_write.h tests/quant_chain.h tests/count_alloc.h
	@mkdir -p $(@D)
	$(AARCH64_CC) $(STD) $(WARN) $(OPT) -static -I. -o $@ $< -lm

$(BUILD)/fuzz/%: tests/%.c tests/fuzz_seeds.h $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I. -o $@ $<

$(BUILD)/fuzzloop/%: tests/%.c tests/fuzz_main.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O1 -g $(SAN) -DTT_FUZZ_LOOP -I. -o $@ $< -lm

$(BUILD)/bench/%: bench/%.c $(wildcard bench/*.h) tests/onnx_write.h tests/quant_chain.h tests/count_alloc.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O3 -march=native -I. -o $@ $< -lm -pthread

# The oneDNN peer links -ldnnl only when the library is there; without it the
# bench is built to print a skip.
HAVE_DNNL := $(shell echo 'int main(void){return 0;}' | $(CC) -x c -include dnnl.h -o /dev/null - -ldnnl 2>/dev/null && echo yes)
$(BUILD)/bench/bench_conv_onednn: bench/bench_conv_onednn.c $(wildcard bench/*.h) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O3 -march=native -I. -o $@ $< $(if $(HAVE_DNNL),-ldnnl,-DTI_BENCH_NO_DNNL) -lm

# One command per check; tests/run.sh adds them up and prints the closing line.
CHECKS := $(TESTS:%=$(BUILD)/test/%) $(TESTS:%=$(BUILD)/asan/%) $(KTESTS:%=$(BUILD)/nosimd/%) \
          $(foreach h,$(HEADERS),"tests/header_check.sh $(h) c99" "tests/header_check.sh $(h) c++" "tests/header_check.sh $(h) static") \
          $(foreach h,$(HEADERS),"tests/header_check.sh $(h) no_nn") \
          $(foreach h,$(HEADERS),"tests/header_check.sh $(h) no_errmsg" "tests/header_check.sh $(h) nodiscard") \
          "tests/header_check.sh taskir_kernels.h freestanding" "tests/errmsg_check.sh" \
          "tests/header_check.sh tools/taskir_pool.h c99" "tests/header_check.sh tools/taskir_pool.h c++"
TEST_BINS := $(TESTS:%=$(BUILD)/test/%) $(TESTS:%=$(BUILD)/asan/%) $(KTESTS:%=$(BUILD)/nosimd/%)
# The aarch64 (NEON) kernel tests need both the cross compiler and qemu;
# without either they are counted as skipped, saying what is missing.
NO_AARCH64_CC := $(if $(AARCH64_CC),,aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross))
NO_QEMU       := $(if $(QEMU),,qemu-aarch64 (apt-get install qemu-user))
AARCH64_MISSING := $(NO_AARCH64_CC)$(if $(NO_AARCH64_CC),$(if $(NO_QEMU), and ))$(NO_QEMU)
ifeq ($(AARCH64_MISSING),)
TEST_BINS += $(KTESTS:%=$(BUILD)/aarch64/%)
CHECKS += $(KTESTS:%="$(QEMU) $(BUILD)/aarch64/%")
else
CHECKS += "echo 'skip: the $(words $(KTESTS)) aarch64 kernel tests under qemu: missing $(AARCH64_MISSING)'; \
           echo '0 passed, 0 failed, $(words $(KTESTS)) skipped'"
endif
CHECKS += "tests/firmware_check.sh" "tests/endian_check.sh"
ifeq ($(HAVE_FUZZER),yes)
TEST_BINS += $(FUZZERS:%=$(BUILD)/fuzz/%)
CHECKS += $(FUZZERS:%="tests/fuzz_run.sh $(BUILD)/fuzz/% $(FUZZ_SECONDS)")
else
TEST_BINS += $(FUZZERS:%=$(BUILD)/fuzzloop/%)
CHECKS += $(FUZZERS:%="$(BUILD)/fuzzloop/%")
endif
CHECKS += $(wildcard tests/cli_*.sh)

demo: $(BUILD)/taskir
	$(BUILD)/taskir demo

test: all $(TEST_BINS)
	@tests/run.sh $(CHECKS)

# The onnxruntime peer of bench_exec: npm's onnxruntime-node (its bundled CPU
# library, no install scripts) in a scratch directory; without npm, or when
# the install fails, bench_exec prints the skip.
ORT_DIR := $(BUILD)/bench/ort
ORT_PKG := onnxruntime-node@1.30.0
NPM     := $(shell command -v npm 2>/dev/null)
$(ORT_DIR)/node_modules/onnxruntime-node/package.json:
	@mkdir -p $(ORT_DIR)
	$(if $(NPM),cd $(ORT_DIR) && npm install --ignore-scripts --no-audit --no-fund $(ORT_PKG) > npm.log 2>&1 \
	  || echo "skip: npm install $(ORT_PKG) failed (see $(ORT_DIR)/npm.log)",\
	  @echo "skip: the onnxruntime peer needs npm and nodejs (apt-get install --no-install-recommends npm nodejs)")

bench: all $(BENCHES:%=$(BUILD)/bench/%) $(ORT_DIR)/node_modules/onnxruntime-node/package.json
	@for b in $(BENCHES:%=$(BUILD)/bench/%); do echo "== $$b"; TASKIR_ORT_DIR=$(ORT_DIR) $$b || exit 1; done

# Headers, the tool, taskir.pc and the docs; all or nothing (tools/install.sh).
install: $(TOOL)
	@sh tools/install.sh install "$(DESTDIR)$(PREFIX)" "$(PREFIX)" $(TOOL)

uninstall:
	@sh tools/install.sh uninstall "$(DESTDIR)$(PREFIX)" "$(PREFIX)" $(TOOL)

clean:
	rm -rf $(BUILD)

.PHONY: all demo test bench install uninstall clean
.SECONDARY:
