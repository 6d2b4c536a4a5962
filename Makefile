# blkmap: record block I/O with tracefs, report it under the right disk names.
#
#   make               build ./blkmap
#   make check         unit tests, then live tests (root), with one summary
#                      (SANITIZED_PASS=1: the sanitized build's too)
#   make SANITIZE=1    ./blkmap-san, with AddressSanitizer and UndefinedBehaviorSanitizer
#                      (make check SANITIZE=1 runs the tests with it)
#   make STATIC=1      ./blkmap-static, one binary to copy onto machines without
#                      the libraries
#   make V=1           show the commands
#   make WERROR=       warnings as warnings, not errors (a newer compiler than gcc 12, clang 14)
#   make module        the kernel module, for the running kernel or KDIR=
#   make fuzz          fuzz whole files, pages, print formats, FUZZ_SECONDS each (libFuzzer, clang)
#   make install       PREFIX (/usr/local) and DESTDIR, as usual; with libkshark-dev,
#                      the KernelShark plugin too (build/kernelshark/plugin-blkmap.so)
#   make bench         benchmarks against trace-cmd and perf (root; bench/run)

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BUILD     ?= build

PKGS      := libtracefs libtraceevent libbpf libzstd zlib
CC        ?= cc
CFLAGS    ?= -O2 -g
# Warnings are defects: every build the suite makes (this one, SANITIZE=1,
# fuzz's) fails on one. WERROR= builds anyway, with a compiler newer than
# gcc 12 and clang 14, the ones the tree is kept quiet under.
WERROR    ?= -Werror
WARNINGS  := -Wall -Wextra -Wshadow -Wno-unused-parameter $(WERROR)
# gcc's -Wformat-truncation stays off; clang has no such option, and would warn of it.
CFLAGS    += -std=gnu11 $(WARNINGS) \
             $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),,-Wno-format-truncation) \
             -D_GNU_SOURCE -DBLKMAP_VERSION='"$(VERSION)"' \
             -Iinclude $(shell pkg-config --cflags $(PKGS))
LDLIBS    += $(shell pkg-config --libs $(PKGS)) -lpthread -lm

PROGRAM   := blkmap
ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
BUILD     := build-san
PROGRAM   := blkmap-san
endif

ifeq ($(STATIC),1)
LDFLAGS   += -static
LDLIBS    := $(shell pkg-config --static --libs $(PKGS)) -lpthread -lm
BUILD     := build-static
PROGRAM   := blkmap-static
endif

ifneq ($(V),1)
Q := @
quiet = @printf '  %-6s %s\n' $(1) $(2);
endif

LIB_SRC   := $(wildcard lib/*/*.c)
CMD_SRC   := $(wildcard cmd/*.c)
UNIT_SRC  := $(wildcard tests/unit/*.c tests/unit/*/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ   := $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJ  := $(UNIT_SRC:%.c=$(BUILD)/%.o)
LIBBLKMAP := $(BUILD)/libblkmap.a
UNIT_BIN  := $(BUILD)/tests/unit/run-unit

# The KernelShark plugin, where libkshark's headers are (and not in the
# sanitized or static builds): the map code again, position-independent, its
# symbols hidden inside the plugin.
ifeq ($(SANITIZE)$(STATIC),)
PLUGIN    := $(if $(shell pkg-config --exists libkshark 2>/dev/null && echo y), \
               $(BUILD)/kernelshark/plugin-blkmap.so)
endif
PIC_OBJ   := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
KSHARK_CFLAGS = $(patsubst -I%,-isystem %,$(shell pkg-config --cflags libkshark libtracecmd))

all: $(PROGRAM) $(PLUGIN)

$(PROGRAM): $(CMD_OBJ) $(LIBBLKMAP)
	$(call quiet,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIBBLKMAP): $(LIB_OBJ)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c -o $@ $<

$(BUILD)/libblkmap-pic.a: $(PIC_OBJ)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/kernelshark/plugin-blkmap.so: kernelshark/blkmap.c $(BUILD)/libblkmap-pic.a
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CPPFLAGS) $(CFLAGS) $(KSHARK_CFLAGS) \
		-fPIC -shared -Wl,--no-undefined $(LDFLAGS) -o $@ $^ \
		$(shell pkg-config --libs libkshark libtracecmd libtraceevent libzstd zlib)

# reformat: a recording with an event's print format replaced, how the hostile
# files of tests/data/print are made (tests/data/print/README).
$(BUILD)/tests/helpers/reformat: tests/helpers/reformat.c $(LIBBLKMAP)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $^ $(LDLIBS)

# What KernelShark shows with the plugin, driven through libkshark (the tests).
$(BUILD)/tests/kernelshark/ks-labels: tests/kernelshark/ks-labels.c
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CPPFLAGS) $(CFLAGS) $(KSHARK_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(shell pkg-config --libs libkshark)

$(UNIT_OBJ): CPPFLAGS += -Itests/unit

$(UNIT_BIN): $(UNIT_OBJ) $(LIBBLKMAP)
	$(call quiet,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs check) -lm

$(BUILD)/bench/flood $(BUILD)/bench/pagecost $(BUILD)/bench/nullread: $(BUILD)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -pthread -o $@ $^

$(BUILD)/bench/%: bench/%.c $(LIBBLKMAP)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Benchmarks against peers (root): see bench/run.
bench: $(PROGRAM) $(BUILD)/bench/mkbig $(BUILD)/bench/walk $(BUILD)/bench/flood $(BUILD)/bench/pagecost $(BUILD)/bench/nullread
	bench/run

# A FUSE file system that fails writes with EIO, for the live tests (if libfuse3 is there).
HELPERS := $(if $(shell pkg-config --exists fuse3 && echo y),$(BUILD)/tests/helpers/eiofs)

$(BUILD)/tests/helpers/eiofs: tests/helpers/eiofs.c
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CPPFLAGS) -O2 -g -Wall -Wextra -Wno-unused-parameter $(WERROR) \
		$(shell pkg-config --cflags fuse3) -o $@ $< $(shell pkg-config --libs fuse3)

KS_LABELS := $(if $(PLUGIN),$(BUILD)/tests/kernelshark/ks-labels)

# make check SANITIZED_PASS=1: the sanitized build's unit, offline and live
# tests first, in the same run (tests/run says which).
SAN_RUN := $(if $(filter 1,$(SANITIZED_PASS)),SAN_BLKMAP=$(CURDIR)/blkmap-san \
             SAN_UNIT=$(CURDIR)/build-san/tests/unit/run-unit)

check-san-build:
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 blkmap-san build-san/tests/unit/run-unit

check: $(PROGRAM) $(UNIT_BIN) $(BUILD)/bench/mkbig $(HELPERS) $(PLUGIN) $(KS_LABELS) \
       $(if $(filter 1,$(SANITIZED_PASS)),check-san-build)
	$(Q)BLKMAP=$(CURDIR)/$(PROGRAM) UNIT=$(CURDIR)/$(UNIT_BIN) MKBIG=$(CURDIR)/$(BUILD)/bench/mkbig \
		SANITIZED=$(SANITIZE) EIOFS=$(if $(HELPERS),$(CURDIR)/$(HELPERS)) $(SAN_RUN) \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 tests/run

# The fuzzer: clang's libFuzzer with ASan and UBSan over the report pipeline,
# seeded with the recordings in tests/data. FUZZ_SECONDS=30 a target by default.
# No allocation stacks and a small quarantine: a faster fuzzer; rerun a crash
# with the default ASAN_OPTIONS for the allocation's stack.
FUZZ_SECONDS ?= 30
FUZZ_DIR     := build-fuzz
FUZZ_CFLAGS  := -g -O1 -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -DBLKMAP_VERSION='"$(VERSION)"' -Iinclude \
                $(shell pkg-config --cflags $(PKGS)) -fsanitize=address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_OBJ     := $(LIB_SRC:%.c=$(FUZZ_DIR)/%.o)
# Kept between targets, not removed as intermediate files.
.SECONDARY: $(FUZZ_OBJ)

$(FUZZ_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CLANG,$<)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(call quiet,LINK,$@)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ \
		$(shell pkg-config --libs $(PKGS)) -lpthread

$(FUZZ_DIR)/page_seeds: tests/fuzz/page_seeds.c $(LIBBLKMAP)
	$(call quiet,LINK,$@)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $^ $(LDLIBS)

# Three targets, FUZZ_SECONDS each: fuzz_report mutates whole files (headers
# too), with a dictionary of the format's words and edge numbers, its corpus
# the recordings and the hostile files of tests/data/bad and tests/data/print;
# fuzz_pages runs of 3 pages under a real recording's headers, in one
# recording kept open; fuzz_format an event's print format, its records a
# real recording's, seeded with the recordings' formats and the hostile ones.
# The last two reuse one parser state: several times as many inputs a second.
FUZZ_ASAN = malloc_context_size=0:quarantine_size_mb=16
FUZZ_RUN = LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	ASAN_OPTIONS=$(FUZZ_ASAN) \
	FUZZ_PAGES_HEADERS=$(CURDIR)/tests/data/vm61-module.dat
FUZZ_FLAGS = -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=1024 -timeout=10 \
	-artifact_prefix=$(FUZZ_DIR)/crashes/ -print_final_stats=1
# Leaks looked for once, at the end, not after every input that allocated
# more than it freed: libtraceevent's leaks on malformed formats (suppressed,
# tests/lsan.supp) and the caches that grow made LeakSanitizer scan the heap
# after most inputs, two thirds of the time.
FUZZ_FAST = -detect_leaks=0

fuzz: $(FUZZ_DIR)/fuzz_report $(FUZZ_DIR)/fuzz_pages $(FUZZ_DIR)/fuzz_format $(FUZZ_DIR)/page_seeds
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/pages $(FUZZ_DIR)/formats $(FUZZ_DIR)/crashes
	cp -n tests/data/*.dat tests/data/v7/*.dat tests/data/bad/*.dat tests/data/fuzz/*.dat \
		tests/data/print/*.dat \
		$(FUZZ_DIR)/corpus/
	$(FUZZ_DIR)/page_seeds $(FUZZ_DIR)/pages tests/data/*.dat
	$(FUZZ_RUN) $(FUZZ_DIR)/fuzz_report $(FUZZ_FLAGS) -max_len=262144 \
		-dict=$(CURDIR)/tests/fuzz/tracedat.dict $(FUZZ_DIR)/corpus
	$(FUZZ_RUN) $(FUZZ_DIR)/fuzz_pages $(FUZZ_FLAGS) $(FUZZ_FAST) -max_len=12289 $(FUZZ_DIR)/pages
	$(FUZZ_RUN) ASAN_OPTIONS=$(FUZZ_ASAN):allow_user_segv_handler=1 \
		FUZZ_FORMAT_SEEDS=$(FUZZ_DIR)/formats \
		FUZZ_FORMAT_FROM="$(wildcard $(CURDIR)/tests/data/print/*.dat)" \
		$(FUZZ_DIR)/fuzz_format $(FUZZ_FLAGS) $(FUZZ_FAST) -max_len=4096 \
		-dict=$(CURDIR)/tests/fuzz/printfmt.dict $(FUZZ_DIR)/formats

# Installation, as Debian lays it out: PREFIX=/usr DESTDIR=... for packages.
BINDIR     = $(PREFIX)/bin
MANDIR     = $(PREFIX)/share/man
COMPLETION = $(PREFIX)/share/bash-completion/completions
# Where KernelShark looks for plugins when PREFIX is /usr; elsewhere, load it
# with kernelshark -p.
KSHARK_PLUGINS = $(PREFIX)/lib/$(shell $(CC) -print-multiarch)/kernelshark/plugins

install: $(PROGRAM) $(PLUGIN)
	install -D -m 755 $(PROGRAM) $(DESTDIR)$(BINDIR)/blkmap
	$(if $(PLUGIN),install -D -m 644 $(PLUGIN) $(DESTDIR)$(KSHARK_PLUGINS)/plugin-blkmap.so)
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	for page in man/*.1; do gzip -9n <$$page >$(DESTDIR)$(MANDIR)/man1/$${page#man/}.gz; done
	for page in man/*.5; do gzip -9n <$$page >$(DESTDIR)$(MANDIR)/man5/$${page#man/}.gz; done
	install -D -m 644 scripts/blkmap.bash-completion $(DESTDIR)$(COMPLETION)/blkmap

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/blkmap $(DESTDIR)$(COMPLETION)/blkmap
	rm -f $(DESTDIR)$(KSHARK_PLUGINS)/plugin-blkmap.so
	for page in man/*.1; do rm -f $(DESTDIR)$(MANDIR)/man1/$${page#man/}.gz; done
	for page in man/*.5; do rm -f $(DESTDIR)$(MANDIR)/man5/$${page#man/}.gz; done

KDIR ?= /lib/modules/$(shell uname -r)/build

module:
	@test -d "$(KDIR)" || { echo "make module: no kernel build tree at $(KDIR); install linux-headers-$$(uname -r) or set KDIR=" >&2; exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)/module" modules

module-clean:
	@test ! -d "$(KDIR)" || $(MAKE) -C "$(KDIR)" M="$(CURDIR)/module" clean

clean:
	rm -rf build build-san build-static build-fuzz blkmap blkmap-static blkmap-san

.PHONY: all bench check check-san-build clean fuzz install uninstall module module-clean
-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) $(PIC_OBJ:.o=.d)
