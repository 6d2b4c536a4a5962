# Helpers for guest scenarios (busybox sh), at /scenario-lib.sh in the guest.
# A scenario logs each write in /out/writes.log: "NAME MAJ:MIN FIRST_SECTOR
# SECTORS", one write per incarnation.
log=/out/writes.log
: >"$log"
# step WHAT: what the scenario does now; tests/vm/run names the last step
# when the guest does not finish in time.
step() { echo "STEP $*"; }
devnum() { cat "/sys/class/block/$1/dev"; }
# The scenarios are about reused numbers: without reuse they test nothing.
# A recorder still running is stopped first: the guest would not power off.
premise() {
	echo "scenario premise missing: $*" >&2
	cat "$log" >&2
	[ -z "${rec:-}" ] || { kill -INT "$rec"; wait "$rec"; } || true
	exit 1
}
# nullb NAME: a memory-backed null_blk disk made through configfs as NAME;
# prints its kernel name: NAME where the kernel names the disk after the
# configfs item (6.0 and later), nullb<index> before (5.10).
nullb() {
	mkdir /sys/kernel/config/nullb/$1
	echo 1 >/sys/kernel/config/nullb/$1/memory_backed
	echo 1 >/sys/kernel/config/nullb/$1/power
	if [ -e /sys/block/$1 ]; then
		echo "$1"
	else
		echo "nullb$(cat /sys/kernel/config/nullb/$1/index)"
	fi
}
# nullb_del NAME: remove what nullb NAME made.
nullb_del() {
	echo 0 >/sys/kernel/config/nullb/$1/power
	rmdir /sys/kernel/config/nullb/$1
}
write() {	# write NAME SEEK COUNT: 4 KiB blocks, logged
	dd if=/dev/zero of="/dev/$1" bs=4k seek="$2" count="$3" oflag=direct 2>/dev/null
	echo "$1 $(devnum "$1") $(($2 * 8)) $(($3 * 8))" >>"$log"
}
# recording ERRFILE: wait until the blkmap writing its messages to ERRFILE
# records (30 s at most: arming takes long under TCG).
recording() {
	i=0
	until grep -q 'recording into' "$1"; do
		i=$((i + 1)); [ $i -lt 300 ] || { cat "$1"; exit 1; }
		sleep 0.1
	done
}
# record [ARGS]: blkmap record into /out/rec.dat in the background, with the
# sources in $SOURCES (default all); returns once it records, $rec its pid.
record() {
	blkmap record --sources="${SOURCES:-all}" "$@" -o /out/rec.dat 2>/out/record.err &
	rec=$!
	recording /out/record.err
}
# lvm_ready: Debian's lvm2 made to work without udev, daemons or metadata
# backups (LVM makes its own nodes), with the device-mapper targets loaded.
lvm_ready() {
	export DM_DISABLE_UDEV=1
	mkdir -p /etc/lvm /run/lock/lvm /run/lvm
	cat >/etc/lvm/lvm.conf <<'CONF'
devices {
	obtain_device_list_from_udev = 0
	external_device_info_source = "none"
	use_devicesfile = 0
}
activation {
	udev_sync = 0
	udev_rules = 0
	verify_udev_operations = 1
	monitoring = 0
}
global {
	use_lvmpolld = 0
	event_activation = 0
	thin_check_executable = ""
	thin_repair_executable = ""
}
backup {
	backup = 0
	archive = 0
}
CONF
	for m in virtio_pci virtio_blk dm-mod dm-snapshot crc32c_generic dm-thin-pool; do
		modprobe $m 2>/dev/null || true
	done
}
