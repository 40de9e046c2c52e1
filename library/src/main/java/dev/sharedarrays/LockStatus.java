package dev.sharedarrays;

import java.util.List;

/**
 * A snapshot of an array's cross-process lock, for diagnostics: it may be stale as soon as it
 * is returned.
 *
 * @param writerPid  the process holding the write lock, 0 if none
 * @param readerPids the processes holding the read lock (each counted once, however many of its
 *                   threads read)
 * @param recoveries how many holds were taken back from processes that died holding them
 */
public record LockStatus(long writerPid, List<Long> readerPids, long recoveries) {
    public LockStatus {
        readerPids = List.copyOf(readerPids);
    }
}
