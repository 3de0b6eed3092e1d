#!/usr/bin/env bash
# Waits (at most 2 s) until no linker from an earlier run is still running. rld, mold and
# wild return to their caller as soon as the output is written, while a child process frees
# the link's memory: that work must not be timed as part of whatever runs next (another
# linker, or the same one again). Then it flushes what the earlier runs wrote. Used by
# bench/run.sh and bench/interleaved.sh between runs, outside the timed part. A child that
# has exited but not yet been reaped (a zombie: its parent is gone, and init reaps at its
# own pace) does no work and is not waited for.
running() {
    local name
    for name in rld mold wild ld.lld-22 ld.bfd ld.gold; do
        pgrep -r R,S,D -x "$name" >/dev/null && return 0
    done
    return 1
}
for ((i = 0; i < 400; i++)); do
    running || break
    sleep 0.005
done
# The outputs written so far go to the disk now, not while the next link runs: the
# kernel's writeback of an earlier run's hundreds of megabytes would take one of the
# cores from whichever linker comes next.
sync
exit 0
