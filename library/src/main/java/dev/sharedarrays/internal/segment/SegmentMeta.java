package dev.sharedarrays.internal.segment;

import dev.sharedarrays.Backend;
import dev.sharedarrays.DType;

/** The immutable facts of a segment, as written at creation and checked at attach. */
public record SegmentMeta(DType<?> dtype, long[] shape, long dataLength, long id,
                          long creatorPid, long creatorStart, long createdMillis, long flags) {

    public boolean persistent() {
        return (flags & SegmentLayout.FLAG_PERSISTENT) != 0;
    }

    /** The backend that created the segment. */
    public Backend backend() {
        int ordinal = (int) ((flags >>> 8) & 0xff);
        Backend[] all = Backend.values();
        return ordinal < all.length ? all[ordinal] : Backend.SHM;
    }

    public long fileSize() {
        return SegmentLayout.fileSize(dataLength);
    }

    public long elementCount() {
        return dataLength / dtype.itemSize();
    }

    public static long flags(boolean persistent, Backend backend) {
        return (persistent ? SegmentLayout.FLAG_PERSISTENT : 0) | ((long) backend.ordinal() << 8);
    }
}
