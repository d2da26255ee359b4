# The symgen fuzz target (tests/fuzz/fuzz_symgen.c), included by the top
# Makefile. libFuzzer comes with clang (Debian: libclang-rt-14-dev).
#
#   make build/fuzz/fuzz_symgen
#   build/fuzz/fuzz_symgen -max_total_time=300 tests/fuzz/corpus/symgen
#   build/fuzz/fuzz_symgen tests/fuzz/regressions/symgen/*    replay
#   make fuzz-symgen-corpus     regenerate the seeds from tests/fixtures/

FUZZ_BUILD ?= build/fuzz
# For tests/fuzz/fuzz.mk, which includes this file: make fuzz and make test
# run $(FUZZ_BUILD)/$(FUZZ_SYMGEN_TARGET) on tests/fuzz/corpus/$(FUZZ_SYMGEN_CORPUS)
# and replay tests/fuzz/regressions/$(FUZZ_SYMGEN_CORPUS).
FUZZ_SYMGEN_TARGET := fuzz_symgen
FUZZ_SYMGEN_CORPUS := symgen
SYMGEN_FUZZ_CC ?= clang
SYMGEN_FUZZ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 -g1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DTRACER_HOST_VIEW \
	-Itracer -Isymgen

# One object per source (make -j compiles them side by side).
SYMGEN_FUZZ_OBJ := $(FUZZ_BUILD)/symgen-obj
$(SYMGEN_FUZZ_OBJ)/%.o: %.c $(SYMGEN_HEADERS) | deps
	@mkdir -p $(@D)
	$(SYMGEN_FUZZ_CC) $(SYMGEN_FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/fuzz_symgen: $(patsubst %.c,$(SYMGEN_FUZZ_OBJ)/%.o,tests/fuzz/fuzz_symgen.c \
		$(SYMGEN_LIB_SRCS))
	$(SYMGEN_FUZZ_CC) $(SYMGEN_FUZZ_CFLAGS) $^ $(TRACER_SYMGEN_LIBS) -o $@

# Seeds: small real images, rv64 and rv32, with function aliases
# (aliases.S), with GCC's .eh_frame (cfi_functions.c) and with every pointer
# encoding (eh_frame_encodings.S), linked as tests/symgen_tests.py links
# them; stripped of debug sections to stay small. And a C alias with its
# .debug_info, from GCC (DWARF 5: strp, addr) and clang (strx, addrx), rv64
# and rv32 (4-byte addresses), for the reader of the names GDB gives
# functions (dwarf_names.c).
SYMGEN_SEEDS := tests/fuzz/corpus/symgen
.PHONY: fuzz-symgen-corpus
fuzz-symgen-corpus: | deps
	@mkdir -p $(FUZZ_BUILD)/seeds $(SYMGEN_SEEDS)
	set -e; for target in rv64imac,lp64,elf64lriscv rv32imac,ilp32,elf32lriscv; do \
		set -- $$(echo $$target | tr , ' '); \
		$(CROSS_COMPILE)gcc -c -march=$$1 -mabi=$$2 tests/fixtures/aliases.S \
			-o $(FUZZ_BUILD)/seeds/aliases-$$1.o; \
		$(CROSS_COMPILE)ld -m $$3 -Ttext=0x80001000 -e global_fn \
			$(FUZZ_BUILD)/seeds/aliases-$$1.o -o $(FUZZ_BUILD)/seeds/aliases-$$1.elf; \
		$(CROSS_COMPILE)gcc -std=c11 -O2 -ffreestanding -fasynchronous-unwind-tables \
			-march=$$1 -mabi=$$2 -c tests/fixtures/cfi_functions.c \
			-o $(FUZZ_BUILD)/seeds/cfi-$$1.o; \
		$(CROSS_COMPILE)ld -m $$3 -Ttext=0x80001000 \
			$(FUZZ_BUILD)/seeds/cfi-$$1.o -o $(FUZZ_BUILD)/seeds/cfi-$$1.elf; \
		$(CROSS_COMPILE)gcc -c -march=$$1 -mabi=$$2 tests/fixtures/eh_frame_encodings.S \
			-o $(FUZZ_BUILD)/seeds/encodings-$$1.o; \
		$(CROSS_COMPILE)ld -m $$3 -Ttext=0x800 --section-start=.eh_frame_fixture=0x1000 \
			$(FUZZ_BUILD)/seeds/encodings-$$1.o -o $(FUZZ_BUILD)/seeds/encodings-$$1.elf; \
		$(CROSS_COMPILE)objcopy --rename-section .eh_frame_fixture=.eh_frame \
			$(FUZZ_BUILD)/seeds/encodings-$$1.elf; \
		for image in aliases cfi encodings; do \
			$(CROSS_COMPILE)objcopy --strip-debug $(FUZZ_BUILD)/seeds/$$image-$$1.elf \
				$(SYMGEN_SEEDS)/$$image-$$1.elf; \
		done; \
	done; \
	for target in rv64imac,lp64,elf64lriscv,riscv64 rv32imac,ilp32,elf32lriscv,riscv32,-rv32; do \
		set -- $$(echo $$target | tr , ' '); \
		for compiler in gcc clang; do \
			$$([ $$compiler = clang ] && echo clang --target=$$4-unknown-elf -mno-relax \
				|| echo $(CROSS_COMPILE)gcc) -std=c11 -g -O2 -march=$$1 -mabi=$$2 \
				-mcmodel=medany -ffreestanding -Itracer -Ikernel \
				-c tests/fixtures/aliases_c.c -o $(FUZZ_BUILD)/seeds/dwarf-$$compiler$$5.o; \
			$(CROSS_COMPILE)ld -m $$3 -Ttext=0x80001000 -e alias_entry \
				--defsym=panic=0x80000000 $(FUZZ_BUILD)/seeds/dwarf-$$compiler$$5.o \
				-o $(SYMGEN_SEEDS)/dwarf-$$compiler$$5.elf; \
		done; \
	done
