# record --user=USER runs the command as USER (uid, groups, HOME), while the
# recorder records as root; an unknown user, or --user without a command,
# is a usage error.
. "$(dirname "$0")/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "no user nobody"

chmod 711 "$T"	# nobody passes through to work/
mkdir "$T/work"
chmod 1777 "$T/work"
"$BLKMAP" record -q --user=nobody -o "$T/out.dat" -- \
	sh -c "id -u >$T/work/uid; id -G >$T/work/groups; echo \$HOME >$T/work/home; dd if=/dev/zero of=$T/work/file bs=4k count=4 conv=fsync 2>/dev/null" ||
	fail "record --user=nobody failed"
[ "$(cat "$T/work/uid")" = "$(id -u nobody)" ] || fail "the command ran as uid $(cat "$T/work/uid"), not nobody's"
[ "$(cat "$T/work/groups")" = "$(id -G nobody)" ] || fail "the command's groups are $(cat "$T/work/groups"), not nobody's"
[ "$(cat "$T/work/home")" = "$(getent passwd nobody | cut -d: -f6)" ] || fail "HOME is not nobody's"
[ "$(stat -c %U "$T/work/file")" = nobody ] || fail "the command's file is not nobody's"
[ "$(stat -c '%U %a' "$T/out.dat")" = "root 600" ] || fail "the recording is $(stat -c '%U %a' "$T/out.dat")"
"$BLKMAP" report "$T/out.dat" | grep -q "blkmap:record-begin" || fail "the recording does not read"

status=0
"$BLKMAP" record --user=no-such-user-here -o "$T/x.dat" -- true 2>"$T/err" || status=$?
[ $status -eq 64 ] && grep -q "no user 'no-such-user-here'" "$T/err" ||
	{ cat "$T/err"; fail "an unknown user: exit $status"; }
status=0
"$BLKMAP" record --user=nobody -o "$T/x.dat" -d 1 2>"$T/err" || status=$?
[ $status -eq 64 ] || { cat "$T/err"; fail "--user without a command: exit $status"; }
[ ! -e "$T/x.dat" ] || fail "a refused --user left a file"
assert_clean
