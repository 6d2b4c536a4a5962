# On a fresh machine tracefs may not be mounted yet: the recorder mounts it
# and records, the first time as every time after.
. "$(dirname "$0")/lib.sh"
need_root

dir=/sys/kernel/tracing
grep -q " $dir tracefs " /proc/mounts || skip "tracefs is not mounted at $dir"
umount "$dir" 2>"$T/umount.err" ||
	skip "cannot unmount $dir to test a fresh machine: $(cat "$T/umount.err")"
remount() { grep -q " $dir tracefs " /proc/mounts || mount -t tracefs nodev "$dir"; }
trap 's=$?; remount; (exit $s); cleanup' EXIT

"$BLKMAP" record -q -d 0.3 -o "$T/fresh.dat" 2>"$T/err" ||
	fail "record with tracefs unmounted exited $?: $(cat "$T/err")"
grep -q " $dir tracefs " /proc/mounts || fail "record did not leave tracefs mounted at $dir"
"$BLKMAP" report "$T/fresh.dat" | grep -q 'blkmap:record-end' ||
	fail "the first recording is not complete"
assert_clean
