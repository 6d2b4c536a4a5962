# The spool beside the output is swapped, by whoever can write the output's
# directory, for a symbolic link to another directory holding another user's
# files: while recording, and after a crash, before the next record, reset
# or recover reclaim it. Nothing of that directory is read, written or
# removed: the recording ends in its output all the same, and a dead
# recorder's spool is refused with the reason. A page file replaced by a
# symbolic link to another's file is refused the same way.
. "$(dirname "$0")/lib.sh"
need_root

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
mkdir "$T/shared" "$T/victim"
chmod 1777 "$T/shared"
# What a spool holds, by name, and a file of its own: all someone else's.
for f in meta.dat pages ring collapsing theirs; do echo "not blkmap's: $f" >"$T/victim/$f"; done
chown -R nobody "$T/victim"
state() { (cd "$T/victim" && ls -ln && md5sum ./*); }
state >"$T/victim.before"
victim_untouched() {
	state >"$T/victim.now"
	cmp -s "$T/victim.before" "$T/victim.now" ||
		fail "$1 changed the other directory: $(diff "$T/victim.before" "$T/victim.now")"
}

# start_recorder NAME: a recorder into $T/shared/NAME.dat, armed; its pid in $rec, its spool in $spool.
start_recorder() {
	"$BLKMAP" record -o "$T/shared/$1.dat" 2>"$T/$1.err" &
	rec=$!
	wait_line "$T/$1.err" "recording into"
	spool=$(ls -d "$T"/shared/.blkmap-$rec[.-]*spool) || fail "$1: no spool (test premise)"
	[ -f "$spool/meta.dat" ] || fail "$1: no meta.dat in the spool (test premise)"
}

# While recording: the spool's name becomes a link to the other directory.
start_recorder live
dd if=/dev/zero of="$L" bs=4k count=20 oflag=direct 2>/dev/null
mv "$spool" "$T/moved"
ln -s "$T/victim" "$spool"
kill -TERM $rec
wait $rec || { cat "$T/live.err"; fail "the recording with a swapped spool failed"; }
victim_untouched "a recording whose spool was swapped"
[ -f "$T/shared/live.dat" ] && [ ! -L "$T/shared/live.dat" ] || fail "no recording written"
n=$("$BLKMAP" report -f csv "$T/shared/live.dat" | grep -c ",block_rq_issue,$(devnum "$L")," || true)
[ "$n" -ge 20 ] || fail "the recording holds $n of the 20 writes"
rm "$spool"
[ -z "$(ls -A "$T/moved")" ] || fail "the moved spool was not emptied: $(ls -A "$T/moved")"
rmdir "$T/moved"
rm "$T/shared/live.dat"

# After a crash: the dead recorder's spool swapped, then reclaimed three ways.
start_recorder dead
dd if=/dev/zero of="$L" bs=4k count=20 oflag=direct 2>/dev/null
kill -KILL $rec
wait $rec 2>/dev/null || true
dead=$rec
mv "$spool" "$T/moved"
ln -s "$T/victim" "$spool"
"$BLKMAP" record -o "$T/next.dat" -- true 2>"$T/next.err" || { cat "$T/next.err"; fail "record failed"; }
cat "$T/next.err"
grep -q "refusing the spool of dead recorder $dead: '$spool' is a symbolic link" "$T/next.err" ||
	fail "record did not say why it left the swapped spool"
victim_untouched "the next record's reclaim"
"$BLKMAP" reset 2>"$T/reset.err" || { cat "$T/reset.err"; fail "reset failed"; }
grep -q "refusing the spool of dead recorder $dead: '$spool' is a symbolic link" "$T/reset.err" ||
	{ cat "$T/reset.err"; fail "reset did not say why it left the swapped spool"; }
victim_untouched "reset"
if "$BLKMAP" recover "$spool" -o "$T/rec.dat" 2>"$T/recover.err"; then
	fail "recover took a symbolic link for a spool"
fi
cat "$T/recover.err"
grep -q "is a symbolic link" "$T/recover.err" || fail "recover did not say why"
[ ! -e "$T/rec.dat" ] || fail "recover wrote a recording from the other directory"
victim_untouched "recover"
# Put back, it is the dead recorder's again, and reset recovers it.
rm "$spool"
mv "$T/moved" "$spool"

# A dead recorder's page file replaced by a link to another's file.
mv "$spool/pages" "$T/pages.kept"
ln -s "$T/victim/pages" "$spool/pages"
"$BLKMAP" reset 2>"$T/reset2.err" || { cat "$T/reset2.err"; fail "reset failed"; }
cat "$T/reset2.err"
grep -q "'$spool/pages' is a symbolic link" "$T/reset2.err" ||
	fail "reset did not say why it left a spool whose page file is a link"
victim_untouched "reset of a spool whose page file is a link"
[ ! -e "$T/shared/dead.dat" ] || fail "reset wrote a recording from another's file"
rm "$spool/pages"
mv "$T/pages.kept" "$spool/pages"
"$BLKMAP" reset 2>"$T/reset3.err" || { cat "$T/reset3.err"; fail "reset failed"; }
grep -q "recovered what dead recorder $dead had recorded" "$T/reset3.err" ||
	{ cat "$T/reset3.err"; fail "the spool, put back, was not recovered"; }
# What the dead recorder's ring buffers held went with its instance, at the first reclaim.
"$BLKMAP" report "$T/shared/dead.dat" | grep -q "blkmap:record-begin" ||
	fail "the recovered recording does not read"
victim_untouched "the whole test"
spools=$(ls -a "$T/shared" | grep '^\.blkmap-' || true)
[ -z "$spools" ] || fail "spool left behind: $spools"
assert_clean
