# Every figure of --disks against the kernel's own counters (/proc/diskstats
# read inside the recording), with real-sized, concurrent I/O: fio at queue
# depth 32, 4 KiB to 1 MiB, readers and writers together, on a loop
# device's two partitions and on zram, and buffered writes written back.
. "$(dirname "$0")/lib.sh"
need_root
command -v fio >/dev/null || skip "no fio"
command -v addpart >/dev/null || skip "no addpart"

truncate -s 256M "$T/img"
L=$(new_loop "$T/img" -P)	# partscan: its partitions go when it is detached
l=$(basename "$L")
addpart "$L" 1 2048 200704
addpart "$L" 2 202752 200704
z=$(new_zram)

cat >"$T/job.fio" <<JOB
[global]
ioengine=libaio
direct=1
iodepth=32
bsrange=4k-1m
runtime=2
time_based
size=90m
[p1]
filename=${L}p1
rw=randrw
[zram]
filename=/dev/zram$z
size=60m
rw=randrw
[p2]
filename=${L}p2
rw=write
direct=0
bs=64k
end_fsync=1
JOB
"$BLKMAP" record -o "$T/rec.dat" -- sh -c "
	cat /proc/diskstats >$T/stat.before
	fio --output=$T/fio.out $T/job.fio || exit 1
	sync
	cat /proc/diskstats >$T/stat.after
" 2>"$T/record.err" || { cat "$T/record.err" "$T/fio.out"; fail "record or fio failed"; }
grep -q "lost 0 " "$T/record.err" || { cat "$T/record.err"; fail "events were lost: the counts cannot agree"; }
"$BLKMAP" report --disks -f csv "$T/rec.dat" >"$T/disks.csv"
# Kernels since 6.9 take a plug's clock once (blk_time_get_ns).
plug=
printf '%s\n' 6.9 "$(uname -r)" | sort -V -C && plug=--plug-clock
python3 "$(dirname "$0")/../lib/kernel_counters.py" $plug --flushes "$T/stat.before" "$T/stat.after" \
	"$T/disks.csv" "$l" "${l}p1" "${l}p2" "zram$z" ||
	fail "blkmap's figures are not the kernel's"
# The flushes were compared: the written-back partition's fsync made some.
flushed=$(awk -v d="$l" '$3 == d {f[FILENAME] = $19} END {print f[ARGV[2]] - f[ARGV[1]]}' \
	"$T/stat.before" "$T/stat.after")
[ "${flushed:-0}" -gt 0 ] || fail "premise missing: the kernel counted no flush on $l"
note "$l: $flushed flushes, as the kernel counted them"
