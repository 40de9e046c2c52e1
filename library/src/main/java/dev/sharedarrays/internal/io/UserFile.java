package dev.sharedarrays.internal.io;

import dev.sharedarrays.NpyFormatException;
import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.os.Libc;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file the user names for {@code load} or {@code save}, opened the one way that cannot hang:
 * open(2) with O_NONBLOCK (a FIFO opens at once, or fails with ENXIO), then fstat of that
 * descriptor, never of the name (which another process may swap for a FIFO in between), and
 * only a regular file passes. Symbolic links are followed, as numpy's {@code np.load} and
 * {@code np.save} follow them: what is opened is checked, however it was reached. The checked
 * descriptor is then reopened as a FileChannel through {@code /proc/self/fd/<fd>}, which
 * opens that very file and no other.
 */
final class UserFile {
    private UserFile() {
    }

    /**
     * Opens path for reading.
     *
     * @throws NpyFormatException if it is not a regular file (a FIFO, device, socket, directory)
     * @throws IOException if it cannot be opened: NoSuchFileException if it does not exist
     */
    static FileChannel openForReading(Path path) throws IOException {
        if (path.getFileSystem() != FileSystems.getDefault()) {
            return FileChannel.open(path, StandardOpenOption.READ); // no FIFO outside the OS's file system
        }
        int fd = open(path, Libc.O_RDONLY);
        return reopen(path, fd, false);
    }

    /**
     * Opens path for writing, creating it (mode 0666 less the umask) if it does not exist, and
     * truncates it once it is known to be a regular file.
     *
     * @throws IOException if it cannot be opened, or is not a regular file (FileSystemException
     *         saying what it is)
     */
    static FileChannel openForWriting(Path path) throws IOException {
        if (path.getFileSystem() != FileSystems.getDefault()) {
            return FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        }
        int fd = open(path, Libc.O_WRONLY | Libc.O_CREAT);
        FileChannel ch = reopen(path, fd, true);
        try {
            ch.truncate(0);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        return ch;
    }

    private static int open(Path path, int flags) throws IOException {
        String p = path.toAbsolutePath().toString();
        int fd = Libc.open(p, flags | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0666);
        if (fd >= 0) {
            return fd;
        }
        int errno = Libc.errno();
        boolean write = (flags & Libc.O_WRONLY) != 0;
        if (errno == Libc.ENXIO || errno == Libc.EISDIR) {
            // O_NONBLOCK: a FIFO without a reader is not opened for writing (ENXIO), a socket never
            String what = errno == Libc.EISDIR ? "a directory"
                    : write ? "a FIFO without a reader, a socket or a device without a driver" : "a socket or a device without a driver";
            throw notRegular(path, write, what);
        }
        throw switch (errno) {
            case Libc.ENOENT -> new NoSuchFileException(path.toString());
            case Libc.EACCES, Libc.EPERM -> new AccessDeniedException(path.toString());
            default -> new FileSystemException(path.toString(), null, "open failed: errno " + errno + " (" + Libc.strerror(errno) + ")");
        };
    }

    private static FileChannel reopen(Path path, int fd, boolean write) throws IOException {
        try {
            FileStat s = Libc.fstat(fd, path.toString());
            if (!s.isRegular()) {
                throw notRegular(path, write, s.kind());
            }
            return FileChannel.open(Path.of("/proc/self/fd/" + fd), write ? StandardOpenOption.WRITE : StandardOpenOption.READ);
        } finally {
            Libc.close(fd);
        }
    }

    /**
     * For writing, the IOException save reports; for reading, throws the NpyFormatException that
     * load documents for a file that is not a regular one.
     */
    private static IOException notRegular(Path path, boolean write, String what) {
        if (!write) {
            throw new NpyFormatException("file " + path + " is not a regular file (" + what + "); a .npy file is");
        }
        return new FileSystemException(path.toString(), null, "it is " + what + ", not a regular file; save writes a .npy file, "
                + "which is one (write to a FIFO or device from a stream in your own code)");
    }
}
