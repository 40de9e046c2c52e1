package dev.sharedarrays;

import java.util.Arrays;

/**
 * How to attach an array. Immutable; each method returns a changed copy.
 *
 * <p>By default attach accepts only a segment owned by this process's effective user: another
 * user's file in a shared directory (a 0666 file planted under a name you use, say) is refused
 * with an {@link InvalidSegmentException}. Trust another user's segments explicitly:
 *
 * <pre>{@code
 * SharedArrays.attach(handle, AttachOptions.defaults().trustUid(1001))
 * }</pre>
 */
public final class AttachOptions {
    private static final AttachOptions DEFAULTS = new AttachOptions(new int[0]);

    /** Sorted, without duplicates. */
    private final int[] trustedUids;

    private AttachOptions(int[] trustedUids) {
        this.trustedUids = trustedUids;
    }

    /** Trusts only segments of this process's effective user. */
    public static AttachOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Also accepts segments owned by {@code uid}.
     *
     * @throws IllegalArgumentException if {@code uid < 0}
     */
    public AttachOptions trustUid(int uid) {
        if (uid < 0) {
            throw new IllegalArgumentException("a uid is at least 0, but was " + uid);
        }
        if (trusts(uid)) {
            return this;
        }
        int[] more = Arrays.copyOf(trustedUids, trustedUids.length + 1);
        more[trustedUids.length] = uid;
        Arrays.sort(more);
        return new AttachOptions(more);
    }

    /** Whether a segment owned by {@code uid} is accepted besides this user's own. */
    public boolean trusts(int uid) {
        return Arrays.binarySearch(trustedUids, uid) >= 0;
    }

    /** The uids trusted besides this process's effective user, ascending. */
    public int[] trustedUids() {
        return trustedUids.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AttachOptions other && Arrays.equals(trustedUids, other.trustedUids);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(trustedUids);
    }

    @Override
    public String toString() {
        return "AttachOptions(trustedUids=" + Arrays.toString(trustedUids) + ")";
    }
}
