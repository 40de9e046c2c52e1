package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.segment.Segment;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.AttachOptions;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.SharedArrayException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Passing a descriptor between processes over a Unix domain socket with SCM_RIGHTS. The
 * message carries the array's handle string, so the receiver can check the id.
 *
 * <pre>
 * sockaddr_un  { u16 family = AF_UNIX; char path[108]; }                 110 bytes
 * iovec        { void *base; u64 len; }                                   16 bytes
 * msghdr       { void *name; u32 namelen; (pad); iovec *iov; u64 iovlen;
 *                void *control; u64 controllen; i32 flags; (pad) }        56 bytes
 * cmsghdr      { u64 len = 20; i32 level = SOL_SOCKET; i32 type = SCM_RIGHTS; int fd; (pad) }  24 bytes
 * </pre>
 */
public final class FdPassing {
    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int SOL_SOCKET = 1;
    private static final int SCM_RIGHTS = 1;
    private static final int MSG_CMSG_CLOEXEC = 0x40000000;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final short POLLIN = 1;
    private static final int SUN_PATH_MAX = 107;
    private static final int MSGHDR_SIZE = 56;
    private static final int CMSG_SPACE = 24;
    private static final int CMSG_LEN = 20;
    private static final int MAX_PAYLOAD = 4096;

    private static final MethodHandle SOCKET = Libc.errnoCall("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle BIND = Libc.errnoCall("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle LISTEN = Libc.errnoCall("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle ACCEPT4 = Libc.errnoCall("accept4", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle CONNECT = Libc.errnoCall("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle SENDMSG = Libc.errnoCall("sendmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle RECVMSG = Libc.errnoCall("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle POLL = Libc.errnoCall("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), -1);
    private static final MethodHandle GETSOCKOPT = Libc.errnoCall("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), -1);
    private static final int SO_PEERCRED = 17;
    private static final int UCRED_SIZE = 12;
    private static final int SOCKET_MODE = 0600;

    private FdPassing() {
    }

    private static MemorySegment sockaddr(Arena a, Path path) {
        byte[] p = path.toString().getBytes(StandardCharsets.UTF_8);
        if (p.length > SUN_PATH_MAX) {
            throw new IllegalArgumentException("socket path " + path + " is " + p.length
                    + " bytes long; Unix sockets allow at most " + SUN_PATH_MAX);
        }
        MemorySegment addr = a.allocate(110, 8);
        addr.set(JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(p, 0, addr, JAVA_BYTE, 2, p.length);
        return addr;
    }

    private static int socket(String subject) throws Throwable {
        int fd = (int) SOCKET.invokeExact(Libc.state(), AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw Libc.failure("socket", subject, Libc.errno());
        }
        return fd;
    }

    /** Connects to the server at path, receives a descriptor and attaches the array behind it. */
    public static Segment receive(Path path) {
        int sock = -1;
        int received = -1;
        try (Arena a = Arena.ofConfined()) {
            sock = socket(path.toString());
            MemorySegment addr = sockaddr(a, path);
            int r;
            do {
                r = (int) CONNECT.invokeExact(Libc.state(), sock, addr, 110);
            } while (r != 0 && Libc.errno() == Libc.EINTR);
            if (r != 0) {
                int errno = Libc.errno();
                if (errno == Libc.ENOENT || errno == 111 /* ECONNREFUSED */) {
                    throw new SegmentNotFoundException("no array is served at " + path + " (connect: "
                            + Libc.strerror(errno) + "); start SharedArrays.serve(array, path) first");
                }
                throw Libc.failure("connect", path.toString(), errno);
            }
            MemorySegment buf = a.allocate(MAX_PAYLOAD);
            MemorySegment iov = a.allocate(16, 8);
            iov.set(ADDRESS, 0, buf);
            iov.set(JAVA_LONG, 8, MAX_PAYLOAD);
            MemorySegment control = a.allocate(CMSG_SPACE, 8);
            MemorySegment msg = a.allocate(MSGHDR_SIZE, 8);
            msg.set(ADDRESS, 16, iov);
            msg.set(JAVA_LONG, 24, 1);
            msg.set(ADDRESS, 32, control);
            msg.set(JAVA_LONG, 40, CMSG_SPACE);
            long n;
            do {
                n = (long) RECVMSG.invokeExact(Libc.state(), sock, msg, MSG_CMSG_CLOEXEC);
            } while (n < 0 && Libc.errno() == Libc.EINTR);
            if (n < 0) {
                throw Libc.failure("recvmsg", path.toString(), Libc.errno());
            }
            long controlLen = msg.get(JAVA_LONG, 40);
            if (controlLen >= CMSG_LEN && control.get(JAVA_INT, 8) == SOL_SOCKET && control.get(JAVA_INT, 12) == SCM_RIGHTS) {
                received = control.get(JAVA_INT, 16);
            }
            if (received < 0 || n == 0) {
                throw new SharedArrayException("the server at " + path + " sent no descriptor (" + n + " bytes, "
                        + controlLen + " bytes of control data); it may have closed its array, or it serves only "
                        + "processes of its own user");
            }
            String text = new String(buf.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
            ArrayHandle sent;
            try {
                sent = ArrayHandle.parse(text);
            } catch (IllegalArgumentException e) {
                throw new SharedArrayException("the server at " + path + " sent a descriptor with a bad handle: " + e.getMessage());
            }
            int fd = received;
            received = -1; // attachFd owns it now
            return MemfdBackend.attachDescriptor(fd, sent, "descriptor received from " + path + " (" + sent + ")",
                    AttachOptions.defaults());
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        } finally {
            if (received >= 0) {
                Libc.close(received);
            }
            if (sock >= 0) {
                Libc.close(sock);
            }
        }
    }

    /**
     * Serves a descriptor on a daemon thread to every connecting process of this user: the
     * socket file is 0600 whatever the umask, and a peer whose uid (SO_PEERCRED) is not our
     * effective uid is disconnected without a descriptor (root can connect past the mode).
     */
    public static final class Server {
        private final Path path;
        private final int listenFd;
        private final IntSupplier fd;
        private final byte[] payload;
        private final Thread thread;
        private final AtomicInteger served = new AtomicInteger();
        private volatile boolean closed;

        public Server(IntSupplier fd, String payload, Path path) {
            this.path = path.toAbsolutePath();
            this.fd = fd;
            this.payload = payload.getBytes(StandardCharsets.UTF_8);
            try (Arena a = Arena.ofConfined()) {
                int s = socket(this.path.toString());
                MemorySegment addr = sockaddr(a, this.path);
                // Linux gives the socket file the socket inode's mode (less the umask): 0600 from birth
                Libc.fchmod(s, SOCKET_MODE);
                if ((int) BIND.invokeExact(Libc.state(), s, addr, 110) != 0) {
                    int errno = Libc.errno();
                    Libc.close(s);
                    throw errno == 98 /* EADDRINUSE */
                            ? new SharedArrayException("cannot serve on " + this.path + ": the path exists; remove it or pick another")
                            : Libc.failure("bind", this.path.toString(), errno);
                }
                // until listen() nobody can connect (ECONNREFUSED): make sure of 0600 before it
                FileStat st = Libc.lstat(this.path.toString());
                if (st == null || st.permissions() != SOCKET_MODE) {
                    int errno = Libc.chmod(this.path.toString(), SOCKET_MODE);
                    if (errno != 0) {
                        Libc.close(s);
                        Libc.unlink(this.path.toString());
                        throw Libc.failure("chmod", this.path + ", 0600", errno);
                    }
                }
                if ((int) LISTEN.invokeExact(Libc.state(), s, 64) != 0) {
                    int errno = Libc.errno();
                    Libc.close(s);
                    Libc.unlink(this.path.toString());
                    throw Libc.failure("listen", this.path.toString(), errno);
                }
                this.listenFd = s;
            } catch (Throwable t) {
                throw Libc.rethrow(t);
            }
            this.thread = Thread.ofPlatform().daemon().name("shared-arrays-serve " + this.path).start(this::loop);
        }

        public Path path() {
            return path;
        }

        public int served() {
            return served.get();
        }

        private void loop() {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment pollfd = a.allocate(8, 4);
                MemorySegment data = a.allocate(payload.length);
                MemorySegment.copy(payload, 0, data, JAVA_BYTE, 0, payload.length);
                MemorySegment iov = a.allocate(16, 8);
                MemorySegment control = a.allocate(CMSG_SPACE, 8);
                MemorySegment msg = a.allocate(MSGHDR_SIZE, 8);
                MemorySegment ucred = a.allocate(UCRED_SIZE, 4);
                MemorySegment ucredLen = a.allocate(JAVA_INT);
                int ownUid = Libc.geteuid();
                while (!closed) {
                    pollfd.set(JAVA_INT, 0, listenFd);
                    pollfd.set(JAVA_SHORT, 4, POLLIN);
                    pollfd.set(JAVA_SHORT, 6, (short) 0);
                    int r = (int) POLL.invokeExact(Libc.state(), pollfd, 1L, 100);
                    if (r <= 0 || closed) {
                        continue;
                    }
                    int conn = (int) ACCEPT4.invokeExact(Libc.state(), listenFd, MemorySegment.NULL, MemorySegment.NULL, SOCK_CLOEXEC);
                    if (conn < 0) {
                        continue;
                    }
                    try {
                        if (peerUid(conn, ucred, ucredLen) != ownUid) {
                            continue; // another user (or unknown): closed without a word
                        }
                        int toSend = fd.getAsInt();
                        if (toSend < 0) {
                            continue; // array closed: the client sees no descriptor
                        }
                        iov.set(ADDRESS, 0, data);
                        iov.set(JAVA_LONG, 8, payload.length);
                        control.fill((byte) 0);
                        control.set(JAVA_LONG, 0, CMSG_LEN);
                        control.set(JAVA_INT, 8, SOL_SOCKET);
                        control.set(JAVA_INT, 12, SCM_RIGHTS);
                        control.set(JAVA_INT, 16, toSend);
                        msg.fill((byte) 0);
                        msg.set(ADDRESS, 16, iov);
                        msg.set(JAVA_LONG, 24, 1);
                        msg.set(ADDRESS, 32, control);
                        msg.set(JAVA_LONG, 40, CMSG_SPACE);
                        long sent = (long) SENDMSG.invokeExact(Libc.state(), conn, msg, MSG_NOSIGNAL);
                        if (sent > 0) {
                            served.incrementAndGet();
                        }
                    } finally {
                        Libc.close(conn);
                    }
                }
            } catch (Throwable t) {
                if (!closed) {
                    System.err.println("shared-arrays: server on " + path + " stopped: " + t);
                }
            }
        }

        /** The uid of the process at the other end of conn (SO_PEERCRED: as it was at connect), -1 if unknown. */
        private static int peerUid(int conn, MemorySegment ucred, MemorySegment len) throws Throwable {
            // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
            len.set(JAVA_INT, 0, UCRED_SIZE);
            int r = (int) GETSOCKOPT.invokeExact(Libc.state(), conn, SOL_SOCKET, SO_PEERCRED, ucred, len);
            return r == 0 && len.get(JAVA_INT, 0) >= UCRED_SIZE ? ucred.get(JAVA_INT, 4) : -1;
        }

        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Libc.close(listenFd);
            Libc.unlink(path.toString());
        }
    }
}
