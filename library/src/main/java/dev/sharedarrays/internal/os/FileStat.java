package dev.sharedarrays.internal.os;

/**
 * What statx(2) says of a file: its identity (device and inode: the same file however it is
 * reached, and a different one after a remove and re-create), type, owner, links and size.
 *
 * @param dev    the device, major and minor in one number
 * @param blocks 512-byte blocks allocated: fewer than the size needs means a sparse file
 */
public record FileStat(long dev, long ino, int mode, int uid, long nlink, long size, long blocks) {
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;

    public boolean isRegular() {
        return (mode & S_IFMT) == S_IFREG;
    }

    /** The same file as {@code other}: same device and inode. */
    public boolean sameFile(FileStat other) {
        return other != null && dev == other.dev && ino == other.ino;
    }

    /**
     * True if path (not following a final symbolic link) names this same file now: the check
     * before every unlink, so that a name removed and re-created meanwhile is left alone.
     */
    public boolean isNamedBy(String path) {
        return sameFile(Libc.lstat(path));
    }

    /** The permission bits, such as 0600. */
    public int permissions() {
        return mode & 07777;
    }

    /** True if every byte of the size has blocks behind it (a sparse file would SIGBUS when mapped). */
    public boolean fullyAllocated() {
        return blocks * 512 >= size;
    }

    /** The file type in words, for messages: "a regular file", "a FIFO", ... */
    public String kind() {
        return switch (mode & S_IFMT) {
            case S_IFREG -> "a regular file";
            case 0040000 -> "a directory";
            case 0010000 -> "a FIFO";
            case 0140000 -> "a socket";
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case 0120000 -> "a symbolic link";
            default -> "a file of type 0" + Integer.toOctalString(mode & S_IFMT);
        };
    }
}
