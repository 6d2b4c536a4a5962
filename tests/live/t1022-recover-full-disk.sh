# recover on a full file system fails and leaves the spool as it was,
# readable, with no "collapsing" cut short: the recording is written beside
# its name and renamed at the end, the collapse's plan written whole before
# it is renamed "collapsing". Into a file system with room, recover writes
# it all. On
# ext4 (which collapses ranges: the spool becomes the file in place) and on
# tmpfs (which copies).
. "$(dirname "$0")/lib.sh"
need_root
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")

# fill KIND N: file N takes what room $T/KIND has left, then all is on the disk.
fill() {
	dd if=/dev/zero of="$T/$1/filler$2" bs=1k 2>/dev/null || true
	sync -f "$T/$1"
}

# full_recover KIND: a spool kept by a recording that filled $T/KIND, then recover into it.
full_recover() {
	kind=$1
	set +e
	"$BLKMAP" record -o "$T/$kind/full.dat" -- \
		dd if=/dev/zero of="$L" bs=4k count=16000 oflag=direct 2>"$T/$kind.err"
	got=$?
	set -e
	[ "$got" -eq 1 ] && grep -q "^blkmap: .*No space left on device" "$T/$kind.err" ||
		{ cat "$T/$kind.err"; fail "$kind: the recording did not fill the disk (test premise)"; }
	spool=$(ls -d "$T/$kind"/.blkmap-*.spool) || fail "$kind: the spool was not kept"
	# Whatever room is left (blocks freed at the failure) goes too, a block at
	# a time: a 4 KiB write needs four of this ext4's 1 KiB blocks and leaves
	# up to three, enough for recover's plan. Again once written back.
	fill "$kind" 1
	fill "$kind" 2
	n=$("$BLKMAP" report "$spool" | grep -c "block_rq_issue .*$(basename "$L")" || true)
	[ "$n" -gt 0 ] || fail "$kind: the kept spool holds no I/O (test premise)"
	room=$(stat -f -c '%f blocks of %S bytes free (%a for users)' "$T/$kind")
	if "$BLKMAP" recover "$spool" -o "$T/$kind/rec.dat" 2>"$T/$kind.recover.err"; then
		filefrag -v "$T/$kind/rec.dat" 2>&1 || true
		fail "$kind: recover succeeded on a full disk, $room before (test premise)"
	fi
	cat "$T/$kind.recover.err"
	[ ! -e "$spool/collapsing" ] || [ -s "$spool/collapsing" ] ||
		fail "$kind: recover left an empty 'collapsing' in the spool"
	grep -q "No space left on device" "$T/$kind.recover.err" || fail "$kind: no word of the full disk"
	[ ! -e "$T/$kind/rec.dat" ] || fail "$kind: recover left a partial recording"
	m=$("$BLKMAP" report "$spool" | grep -c "block_rq_issue .*$(basename "$L")" || true)
	[ "$m" -eq "$n" ] || fail "$kind: after the failed recover the spool reads $m write requests of $n"
	# The header of a recording (kallsyms) needs more room than a full disk frees: elsewhere.
	"$BLKMAP" recover "$spool" -o "$T/$kind.dat" || fail "$kind: recover failed with room"
	m=$("$BLKMAP" report "$T/$kind.dat" | grep -c "block_rq_issue .*$(basename "$L")" || true)
	note "$kind: $n write requests kept, $m recovered"
	[ "$m" -eq "$n" ] || fail "$kind: recovered $m write requests of $n"
	[ ! -e "$spool" ] || fail "$kind: recover left the spool"
	umount "$T/$kind"
}

truncate -s 3M "$T/ext4.img"
E=$(new_loop "$T/ext4.img")
mkfs.ext4 -q -O ^has_journal "$E" || skip "cannot make an ext4 file system"
mkdir "$T/ext4"
mount "$E" "$T/ext4" || skip "cannot mount ext4 here"
full_recover ext4

mkdir "$T/tmpfs"
mount -t tmpfs -o size=2m tmpfs "$T/tmpfs" || skip "cannot mount a small tmpfs"
full_recover tmpfs
assert_clean
