package dev.sharedarrays;

/**
 * When a named array (shm, file) is removed. Whatever the lifetime, removal needs proof: the
 * remover holds {@code flock(LOCK_EX)} on the file or is its owner, and checks that the name
 * still names the file it opened (a name removed and re-created meanwhile is left alone).
 * Attached processes keep their mappings after the name goes, until they close. memfd and
 * anonymous arrays have no name: their memory goes with their last user, whatever this says.
 */
public enum Lifetime {
    /**
     * The default: the creator's close or destroy removes the name, whoever is attached; a
     * segment whose processes all died is removed by the next sweep.
     */
    OWNER,
    /**
     * Reference counted by the kernel: the last process to close it (the creator or any
     * attacher) removes it; a segment whose processes all died is removed by the next sweep.
     */
    SHARED,
    /**
     * Never removed by close or sweep; removed only by {@link SharedArrays#remove} or
     * {@code sharedarrays rm}. The default for a file-backed array at an explicit path.
     */
    PERSISTENT
}
