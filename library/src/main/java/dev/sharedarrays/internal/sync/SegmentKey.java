package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.os.FileStat;

/**
 * What in-process state of a segment (its lock, say) is keyed by: the file's identity
 * (st_dev, st_ino) for segments with a descriptor, so that a copied file is another array even
 * though its array id is the same; the array id for anonymous segments, which have no file.
 */
public record SegmentKey(long dev, long ino, long id, boolean file) {

    /** The key of the file behind a descriptor (shm, file, memfd). */
    public static SegmentKey of(FileStat stat) {
        return new SegmentKey(stat.dev(), stat.ino(), 0, true);
    }

    /** The key of a segment without a file (anonymous). */
    public static SegmentKey ofId(long id) {
        return new SegmentKey(0, 0, id, false);
    }
}
