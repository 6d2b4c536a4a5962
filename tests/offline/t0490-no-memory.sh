# A view that cannot have the memory it needs fails the report (exit 1, a
# message naming the recording) rather than exiting 0 with part of it.
# A preloaded allocator refuses exactly the allocations of one row buffer
# (struct bm_row), which every CSV and JSON view but the events' makes.
# sanitized: no (AddressSanitizer must be the first library loaded: the failing
# allocator cannot be preloaded before it)
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler ($CC) to build the failing allocator"; exit 77; }
rec=$top/tests/data/host-hotplug.dat

cat >"$T/size.c" <<'C'
#include <stdio.h>
#include "blkmap/report/schema.h"
int main(void) { printf("%zu\n", sizeof(struct bm_row)); return 0; }
C
"$CC" -std=gnu11 -D_GNU_SOURCE -I"$top/include" -o "$T/size" "$T/size.c" ||
	fail "cannot build the size probe"
cat >"$T/nomem.c" <<'C'
#include <errno.h>
#include <stdlib.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
static size_t refused(void)
{
	const char *s = getenv("NOMEM_SIZE");
	return s ? strtoul(s, NULL, 10) : 0;
}
void *malloc(size_t n)
{
	if (n && n == refused()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}
void *calloc(size_t n, size_t size)
{
	if (n * size && n * size == refused()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}
C
"$CC" -shared -fPIC -o "$T/nomem.so" "$T/nomem.c" || fail "cannot build the failing allocator"
size=$("$T/size")

for view in --map --conflicts --disks --latency --top --stack --interval=50ms; do
	for fmt in csv json; do
		rc=0
		LD_PRELOAD="$T/nomem.so" NOMEM_SIZE=$size "$BLKMAP" report $view -f $fmt "$rec" \
			>"$T/out" 2>"$T/err" || rc=$?
		[ $rc -eq 1 ] || fail "$view -f $fmt without memory for a row: exit $rc"
		grep -q "cannot report '.*host-hotplug.dat': Cannot allocate memory" "$T/err" ||
			fail "$view -f $fmt without memory said: $(cat "$T/err")"
	done
	# The premise: with the memory, the same report succeeds.
	"$BLKMAP" report $view -f csv "$rec" >/dev/null 2>&1 || fail "$view -f csv fails anyway"
done
note "every CSV and JSON view without memory for its row fails, exit 1, the recording named"
