# Guest scenario (busybox sh): the flight recorder's latency trigger, on
# null_blk devices whose every completion takes a set time (irqmode=2, a
# timer of completion_nsec): "fast" (10 us), "slow" and "other" (80 ms).
# The trigger watches "slow" only, at 40 ms, a snapshot 0.5 s after, two a
# minute at most. Then:
# - fast I/O, and a slow I/O on "other": no snapshot;
# - one slow write on "slow", fast I/O for the next 1.5 s: snapshot 1;
# - three more slow writes, 3 s apart: one more snapshot (the limit).
# Writes /out/rec.dat, rec.N.dat, record.err, writes.log, and /out/slow.log
# ("SECTOR" of each slow write on "slow").
set -e
. /scenario-lib.sh

nullb() {	# nullb NAME COMPLETION_NSEC
	mkdir /sys/kernel/config/nullb/$1
	echo 1 >/sys/kernel/config/nullb/$1/memory_backed
	echo 2 >/sys/kernel/config/nullb/$1/irqmode
	echo $2 >/sys/kernel/config/nullb/$1/completion_nsec
	echo 1 >/sys/kernel/config/nullb/$1/power
}
fast_io() {	# fast_io SECONDS: a write on "fast" every 20 ms
	n=$(($1 * 50))
	while [ $n -gt 0 ]; do
		dd if=/dev/zero of=/dev/fast bs=4k count=1 oflag=direct 2>/dev/null
		sleep 0.02
		n=$((n - 1))
	done
}

modprobe null_blk nr_devices=0
nullb fast 10000
nullb slow 80000000
nullb other 80000000
: >/out/slow.log
record --ring=1M --snapshot-on='latency>40ms,disk=slow' --post=0.5 --snapshot-limit=2

fast_io 1
write other 1 1
fast_io 2
[ ! -e /out/rec.1.dat ] || premise "a snapshot before any slow I/O on 'slow'"
for i in 1 2 3 4; do
	write slow $((i * 10)) 1
	echo $((i * 80)) >>/out/slow.log
	fast_io 1
	sleep 2		# a slow I/O is seen within a second or so: then 0.5 s more
done
sleep 1
kill -INT $rec
wait $rec
for d in fast slow other; do
	echo 0 >/sys/kernel/config/nullb/$d/power
	rmdir /sys/kernel/config/nullb/$d
done
