# The output, and a flight recording's snapshots, are new regular files of
# mode 0600 (they hold kernel addresses and every command name), whatever
# the umask: written beside their name and renamed over it, so an output
# path made a symbolic link to another's file replaces the link and leaves
# that file as it was. The spool's own files are 0600 too.
. "$(dirname "$0")/lib.sh"
need_root
umask 022

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
echo "someone else's" >"$T/other"
chown nobody "$T/other"
md5sum "$T/other" >"$T/other.md5"
mode() { stat -c %a "$1"; }

for how in plain compressed; do
	rm -f "$T/out.dat"
	ln -s "$T/other" "$T/out.dat"
	flags=
	[ $how = plain ] || flags=--compress
	"$BLKMAP" record -q $flags -o "$T/out.dat" -- \
		sh -c "dd if=/dev/zero of=$L bs=4k count=10 oflag=direct 2>/dev/null; ls -ln $T/.blkmap-*/ >$T/spool.$how" ||
		fail "$how: record failed"
	md5sum -c --quiet "$T/other.md5" || fail "$how: recording through a link changed the file it named"
	[ -f "$T/out.dat" ] && [ ! -L "$T/out.dat" ] || fail "$how: the output is not a new regular file"
	[ "$(mode "$T/out.dat")" = 600 ] || fail "$how: the recording has mode $(mode "$T/out.dat"), not 600"
	"$BLKMAP" report "$T/out.dat" >/dev/null || fail "$how: the recording does not read"
	grep -q "meta.dat" "$T/spool.$how" || fail "$how: no spool files seen (test premise)"
	! grep '^-' "$T/spool.$how" | grep -v '^-rw------- ' ||
		fail "$how: spool files of another mode than 0600"
done

# A flight recording: the snapshot and the file at the stop.
rm -f "$T/ring.1.dat"
ln -s "$T/other" "$T/ring.dat"
"$BLKMAP" record --ring=4M -o "$T/ring.dat" 2>"$T/ring.err" &
rec=$!
wait_line "$T/ring.err" "recording into"
dd if=/dev/zero of="$L" bs=4k count=10 oflag=direct 2>/dev/null
snap=$("$BLKMAP" snapshot) || { cat "$T/ring.err"; fail "snapshot failed"; }
[ "$snap" = "$T/ring.1.dat" ] || fail "snapshot named '$snap', not ring.1.dat"
[ "$(mode "$snap")" = 600 ] || fail "the snapshot has mode $(mode "$snap"), not 600"
kill -TERM $rec
wait $rec || { cat "$T/ring.err"; fail "the flight recording failed"; }
md5sum -c --quiet "$T/other.md5" || fail "a flight recording through a link changed the file it named"
[ -f "$T/ring.dat" ] && [ ! -L "$T/ring.dat" ] || fail "the flight recording is not a new regular file"
[ "$(mode "$T/ring.dat")" = 600 ] || fail "the flight recording has mode $(mode "$T/ring.dat"), not 600"
assert_clean
