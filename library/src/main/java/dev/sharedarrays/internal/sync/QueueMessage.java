package dev.sharedarrays.internal.sync;

/**
 * One message of a queue as the cell holds it: a pool slot ({@code index} is the slot), or a
 * view of a shared array ({@code index} is the view's offset in elements).
 *
 * @param id the array id of the pool or array, checked when the receiver attaches it
 */
public record QueueMessage(Kind kind, long id, long index, int dtypeCode, long[] shape, long[] strides,
        String handle, long sender, long position) {

    /** What a message carries; the codes are the cell's kind word. */
    public enum Kind {
        POOL_SLOT(1), VIEW(2);

        final int code;

        Kind(int code) {
            this.code = code;
        }

        static Kind of(int code) {
            return code == POOL_SLOT.code ? POOL_SLOT : code == VIEW.code ? VIEW : null;
        }
    }
}
