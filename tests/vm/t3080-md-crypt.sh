# md and dm-crypt in Debian's kernels (6.1 and 6.12) under QEMU, with every
# source: two raid1 arrays of loop devices one after the other on md0, a
# dm-crypt volume over a loop partition. Every write to the top of each
# stack is labelled with its incarnation.
. "$(dirname "$0")/lib.sh"

for kernel in default 6.12; do
	out=$T/$kernel
	in_vm $kernel md-crypt "$out" SOURCES=all MODULE=1
	note "$kernel: the volume was dm-$(cat "$out/crypt.log")"
	reports "$out"
	"$BLKMAP" report --disks "$out/rec.dat"
	check_writes "$out/writes.log" "$out/events.csv"
	check_map "$out/writes.log" "$out/map.csv"
	check_exact "$out/writes.log" "$out/map.csv"
done
