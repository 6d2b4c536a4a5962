#!/usr/bin/env python3
"""page_cache.py FILE: the bytes of FILE in the page cache, by cachestat(2)
(Linux 6.5+), which walks only the cached pages: fincore(1) asks for every
page of the file, minutes for a sparse spool of terabytes. Exit 2 where the
kernel has no cachestat."""
import ctypes
import errno
import os
import sys

SYS_CACHESTAT = 451    # the same on every architecture


class Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class Stat(ctypes.Structure):
    _fields_ = [("nr_cache", ctypes.c_uint64), ("nr_dirty", ctypes.c_uint64),
                ("nr_writeback", ctypes.c_uint64), ("nr_evicted", ctypes.c_uint64),
                ("nr_recently_evicted", ctypes.c_uint64)]


def main():
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(sys.argv[1], os.O_RDONLY)
    rng, st = Range(0, 0), Stat()    # len 0: to the end of the file
    if libc.syscall(SYS_CACHESTAT, fd, ctypes.byref(rng), ctypes.byref(st), 0) < 0:
        err = ctypes.get_errno()
        print(f"cachestat: {os.strerror(err)}", file=sys.stderr)
        sys.exit(2 if err == errno.ENOSYS else 1)
    print(st.nr_cache * os.sysconf("SC_PAGESIZE"))


main()
