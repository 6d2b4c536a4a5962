# blkmap: record block I/O with tracefs, report it under the right disk names.
#
#   make               build ./blkmap
#   make check         unit tests, then live tests (root), with one summary
#   make SANITIZE=1    build with AddressSanitizer and UndefinedBehaviorSanitizer
#   make STATIC=1      ./blkmap-static, one binary to copy onto machines without
#                      the libraries
#   make V=1           show the commands
#   make module        the kernel module, for the running kernel or KDIR=

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BUILD     ?= build

PKGS      := libtracefs libtraceevent libbpf
CC        ?= cc
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-format-truncation \
             -D_GNU_SOURCE -DBLKMAP_VERSION='"$(VERSION)"' \
             -Iinclude $(shell pkg-config --cflags $(PKGS))
LDLIBS    += $(shell pkg-config --libs $(PKGS)) -lpthread

ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
BUILD     := build-san
endif

PROGRAM   := blkmap
ifeq ($(STATIC),1)
LDFLAGS   += -static
LDLIBS    := $(shell pkg-config --static --libs $(PKGS)) -lpthread
BUILD     := build-static
PROGRAM   := blkmap-static
endif

ifneq ($(V),1)
Q := @
quiet = @printf '  %-6s %s\n' $(1) $(2);
endif

LIB_SRC   := $(wildcard lib/*.c)
CMD_SRC   := $(wildcard cmd/*.c)
UNIT_SRC  := $(wildcard tests/unit/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ   := $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJ  := $(UNIT_SRC:%.c=$(BUILD)/%.o)
LIBBLKMAP := $(BUILD)/libblkmap.a
UNIT_BIN  := $(BUILD)/tests/unit/run-unit

all: $(PROGRAM)

$(PROGRAM): $(CMD_OBJ) $(LIBBLKMAP)
	$(call quiet,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIBBLKMAP): $(LIB_OBJ)
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(UNIT_BIN): $(UNIT_OBJ) $(LIBBLKMAP)
	$(call quiet,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs check)

check: blkmap $(UNIT_BIN)
	$(Q)BLKMAP=$(CURDIR)/blkmap UNIT=$(CURDIR)/$(UNIT_BIN) tests/run

KDIR ?= /lib/modules/$(shell uname -r)/build

module:
	@test -d "$(KDIR)" || { echo "make module: no kernel build tree at $(KDIR); install linux-headers-$$(uname -r) or set KDIR=" >&2; exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)/module" modules

module-clean:
	@test ! -d "$(KDIR)" || $(MAKE) -C "$(KDIR)" M="$(CURDIR)/module" clean

clean:
	rm -rf build build-san build-static blkmap blkmap-static

.PHONY: all check clean module module-clean
-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
