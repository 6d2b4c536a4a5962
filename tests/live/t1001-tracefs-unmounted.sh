# On a fresh machine tracefs may not be mounted yet: the recorder mounts it
# and records, the first time as every time after.
. "$(dirname "$0")/lib.sh"
need_root

dir=/sys/kernel/tracing old=/sys/kernel/debug/tracing
grep -q " $dir tracefs " /proc/mounts || skip "tracefs is not mounted at $dir"
# debugfs mounts tracefs again under it once something (perf, bpftrace)
# looked there: that one goes too, or the recorder would rightly use it.
debug_mounted=false
if grep -q " $old tracefs " /proc/mounts; then
	umount "$old" 2>"$T/umount.err" ||
		skip "cannot unmount $old to test a fresh machine: $(cat "$T/umount.err")"
	debug_mounted=true
fi
umount "$dir" 2>"$T/umount.err" ||
	skip "cannot unmount $dir to test a fresh machine: $(cat "$T/umount.err")"
remount() {
	grep -q " $dir tracefs " /proc/mounts || mount -t tracefs nodev "$dir"
	! $debug_mounted || grep -q " $old tracefs " /proc/mounts || mount -t tracefs nodev "$old"
}
trap 's=$?; remount; (exit $s); cleanup' EXIT

"$BLKMAP" record -q -d 0.3 -o "$T/fresh.dat" 2>"$T/err" ||
	fail "record with tracefs unmounted exited $?: $(cat "$T/err")"
grep -q " $dir tracefs " /proc/mounts || fail "record did not leave tracefs mounted at $dir"
"$BLKMAP" report "$T/fresh.dat" | grep -q 'blkmap:record-end' ||
	fail "the first recording is not complete"
assert_clean
