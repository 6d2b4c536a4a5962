# blkmap diff on the identities only a real machine gives, in Debian's
# default kernel under QEMU (scenarios/diff.sh; the pairing is the
# report's, not the kernel's, so one kernel does):
# - a virtio disk with a serial, across a guest reboot, under another name
#   and number the second time: one row, match serial;
# - a logical volume renamed between two recordings (vg0/data, then
#   vg0/moved; its dm UUID unchanged): one row, match dm, the UUID its
#   identity;
# and every paired side's bytes are what the kernel's stat of that device
# counted inside that recording.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is needed"

k=${KERNELS:-default}
k=${k%% *}
in_vm "$k" diff "$T/boot1" BOOT=1
in_vm "$k" diff "$T/boot2" BOOT=2
kernel=$k
cp "$T/boot2/c.dat" "$T/boot2/c.err" "$T/boot1/"
cat "$T/boot2/disks" >>"$T/boot1/disks"
cat "$T/boot2/stat" >>"$T/boot1/stat"
cd "$T/boot1"
for r in a b c; do
	grep -q "lost 0 " "$r.err" || { cat "$r.err"; fail "$kernel, $r: events were lost"; }
done
"$BLKMAP" diff -q -f json a.dat b.dat >ab.json || fail "diff a b: exit $?"
"$BLKMAP" diff -q -f json a.dat c.dat >ac.json || fail "diff a c: exit $?"
"$BLKMAP" diff -q a.dat b.dat | grep -A2 '^A: dm-'
python3 - <<'PY' || fail "$kernel: blkmap diff does not pair the disks as they are"
import json
disks = {}
for line in open("disks"):
    r, what, name, dev = line.split()
    disks[r, what] = (name, dev)
stat = {}
for line in open("stat"):
    r, dev, rd, wr = line.split()
    stat[r, dev] = (int(rd) * 512, int(wr) * 512)
def pair(path, a, b, what):
    rows = [json.loads(l) for l in open(path)]
    (na, da), (nb, db) = disks[a, what], disks[b, what]
    m = [x for x in rows if x["side"] == "both" and x["name_a"] == na and x["name_b"] == nb]
    assert len(m) == 1, f"{path}: no one row of {na} and {nb}: " + \
        str([(x["name_a"], x["name_b"], x["match"]) for x in rows])
    x = m[0]
    for side, r, dev in (("a", a, da), ("b", b, db)):
        got = (x["read_bytes_" + side], x["write_bytes_" + side])
        assert x["dev_" + side] == dev, f"{path}: {side} is {x['dev_' + side]}, not {dev}"
        assert got == stat[r, dev], f"{path}: {side} {dev}: {got}, the kernel's stat {stat[r, dev]}"
        assert got[1] >= 2 << 20, f"{path}: {side}: only {got[1]} bytes written"
    print(f"# {path}: {na} {da} and {nb} {db}: match {x['match']} ({x.get('identity')}), "
          f"bytes read and written {x['read_bytes_a']} {x['write_bytes_a']} and "
          f"{x['read_bytes_b']} {x['write_bytes_b']}")
    return x
x = pair("ac.json", "a", "c", "serial")
assert disks["a", "serial"][1] != disks["c", "serial"][1], "premise missing: the same number in both boots"
assert x["match"] == "serial" and x["identity"] == "diff-serial", x
x = pair("ab.json", "a", "b", "lv")
assert x["lv_a"] == "vg0/data" and x["lv_b"] == "vg0/moved", (x["lv_a"], x["lv_b"])
assert x["match"] == "dm" and x["identity"].startswith("LVM-"), (x["match"], x["identity"])
assert x["dm_uuid_a"] == x["dm_uuid_b"] == x["identity"]
x = pair("ab.json", "a", "b", "serial")
assert x["match"] == "serial"
PY
