# Guest scenario (busybox sh): blkmap top in CSV, with every map source the
# kernel has, while null_blk devices are created, written and removed on
# one number: nb1 (5 writes), then nb2 (7 writes).
# Writes /out/top.csv, /out/top.err and /out/writes.log.
set -e
. /scenario-lib.sh

nullb() {	# nullb NAME: on, or off and gone
	if [ -d /sys/kernel/config/nullb/$1 ]; then
		echo 0 >/sys/kernel/config/nullb/$1/power
		rmdir /sys/kernel/config/nullb/$1
		return
	fi
	mkdir /sys/kernel/config/nullb/$1
	echo 1 >/sys/kernel/config/nullb/$1/memory_backed
	echo 1 >/sys/kernel/config/nullb/$1/power
}

modprobe null_blk nr_devices=0
blkmap top 0.5 -n 20 --format=csv --sources="${SOURCES:-all}" >/out/top.csv 2>/out/top.err &
top=$!
recording /out/top.err
nullb nb1
for i in 1 2 3 4 5; do write nb1 $((i * 2)) 1; done
nullb nb1
nullb nb2
for i in 1 2 3 4 5 6 7; do write nb2 $((i * 2)) 1; done
nullb nb2
wait $top
