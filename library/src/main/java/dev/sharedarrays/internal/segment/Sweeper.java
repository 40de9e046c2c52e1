package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Proc;

import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.Lifetime;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.SharedArrayException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Removes segments: those no process uses any more (sweep), and one by path (rm).
 *
 * <p>Whether a segment is in use is the kernel's to say: every process that has it open holds
 * flock(LOCK_SH) on it, so a sweep that gets flock(LOCK_EX|LOCK_NB) on its own descriptor knows
 * that no process does, and an attach that comes later takes LOCK_SH only after the sweep
 * closed its descriptor, then finds the file gone (no link) and reports it not found. The
 * control block's records (creator, attach slots) are a second brake only: a segment they show
 * a live process in is left alone too (a process of an older version holds no flock).
 *
 * <p>Removal unlinks only the file that was opened and locked, checked again by identity
 * (st_dev, st_ino) just before: a name removed and re-created meanwhile is left alone. A file
 * that is not ours (another owner, not a regular file, not a valid segment, any name) is
 * skipped, never an error that stops a sweep. Just before it unlinks a segment that no process
 * holds, a sweep or rm shows it to a {@link BeforeRemove} (what a queue's messages still own
 * elsewhere is given back there). Thread-safe; reading is {@link SegmentScan}'s.
 */
public final class Sweeper {
    private Sweeper() {
    }

    /**
     * What a removal does with a segment it is about to unlink while it holds the file
     * exclusively (flock LOCK_EX: no process has it open, and none can attach it until it is gone):
     * the last chance to read it. The layers above pass one in, so that this package needs none of them.
     */
    public interface BeforeRemove {
        /** Whether {@link #accept} must see this segment's data (it is mapped only then). */
        boolean wants(SegmentInfo info);

        /**
         * Sees the segment's data, mapped read-write for the length of the call; what it throws
         * is ignored (the segment is removed all the same).
         */
        void accept(SegmentInfo info, MemorySegment data);
    }

    /**
     * Removes unused non-persistent segments and dead creates' temporary files in these
     * directories, showing each segment to {@code before} just before it is unlinked (not in a dry
     * run); returns their paths.
     */
    public static List<Path> sweep(List<Path> directories, boolean dryRun, BeforeRemove before) {
        List<Path> removed = new ArrayList<>();
        // a dry run unlinks nothing: the names it would have removed, per file, so that it counts links as a sweep would
        Map<Inode, Integer> wouldUnlink = new HashMap<>();
        for (Path dir : directories) {
            List<Path> files;
            try {
                files = SegmentScan.files(dir);
            } catch (SharedArrayException e) {
                continue; // an unreadable directory has nothing we may remove
            }
            // segments first: a create killed between its link and its unlink leaves its temporary name as a
            // second link of the segment; once the segment is removed, that name has one link and goes too
            for (boolean temps : new boolean[] {false, true}) {
                for (Path p : files) {
                    if (Names.isTemp(p.getFileName().toString()) != temps) {
                        continue;
                    }
                    try {
                        if (temps ? sweepTemp(p, dryRun, wouldUnlink) : sweepSegment(p, dryRun, before, wouldUnlink)) {
                            removed.add(p);
                        }
                    } catch (RuntimeException e) {
                        // not ours, damaged, or gone meanwhile: never touched, never fatal
                    }
                }
            }
        }
        return removed;
    }

    /** A file, for a dry run's count of the names it would have unlinked. */
    private record Inode(long dev, long ino) {
    }

    private static boolean sweepSegment(Path p, boolean dryRun, BeforeRemove before, Map<Inode, Integer> wouldUnlink) {
        try (SegmentFile f = SegmentFile.open(p, false, uid -> false, "sweep")) {
            SegmentInfo info = SegmentScan.read(f, null);
            // the records only hold back segments that older versions (no flock) may still use;
            // SHARED ones exist only since the flocks, and their creator may have closed them long ago
            if (info.lifetime() == Lifetime.PERSISTENT || info.lifetime() != Lifetime.SHARED && info.inUse()) {
                return false;
            }
            if (!f.tryLockExclusive() || !f.stillNamed()) {
                return false;
            }
            if (dryRun) {
                wouldUnlink.merge(new Inode(f.stat().dev(), f.stat().ino()), 1, Integer::sum);
            } else {
                show(f, info, before);
                unlink(f.path());
            }
            return true;
        }
    }

    /**
     * Shows a segment this process holds exclusively to {@code before}, through its descriptor
     * (another open of the name could find another file). Never throws.
     */
    private static void show(SegmentFile f, SegmentInfo info, BeforeRemove before) {
        try {
            if (!before.wants(info)) {
                return;
            }
            // /proc/self/fd/<fd> opens the very file f has locked; the new descriptor takes no flock
            try (FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + f.fd()), StandardOpenOption.READ,
                    StandardOpenOption.WRITE); Arena a = Arena.ofConfined()) {
                if (ch.size() < SegmentDescriptor.DATA_OFFSET + info.bytes()) {
                    return; // shrunk since it was read: what it held is gone
                }
                before.accept(info, ch.map(FileChannel.MapMode.READ_WRITE, SegmentDescriptor.DATA_OFFSET, info.bytes(), a));
            }
        } catch (IOException | RuntimeException | InternalError e) {
            // a removal never fails for it: the segment goes all the same
        }
    }

    /**
     * A create's temporary file, removed only if it provably is one whose creator died: its
     * creator, named in the file name, is gone; it is a regular file of this user with one link
     * (a hard link to a file kept elsewhere has two); no process holds it (a live creator holds
     * LOCK_SH from the moment it made it); and its content is what a create leaves at any step:
     * nothing (killed before its first write), or whole pages of which the first is exactly a
     * header page (a create writes it first, in one write). Anything else under such a name (a text file, a
     * copy of another file, a .npy file numpy wrote) is not ours and stays.
     */
    private static boolean sweepTemp(Path p, boolean dryRun, Map<Inode, Integer> wouldUnlink) {
        long[] creator = Names.tempCreator(p.getFileName().toString());
        if (creator == null || Proc.isAlive(creator[0], creator[1])) {
            return false;
        }
        try (SegmentFile f = SegmentFile.openOwn(p, "sweep")) {
            if (!f.tryLockExclusive()) {
                return false;
            }
            // looked at under the lock: no create is writing it any more
            FileStat s = Libc.fstat(f.fd(), p.toString());
            long links = s.nlink() - wouldUnlink.getOrDefault(new Inode(s.dev(), s.ino()), 0);
            if (links != 1 || !(s.size() == 0 || s.size() % SegmentDescriptor.PAGE == 0 && startsWithHeaderPage(f))) {
                return false;
            }
            return removeLocked(f, dryRun);
        }
    }

    /** True if f's first page, read through its descriptor, is exactly a header page a create writes. */
    private static boolean startsWithHeaderPage(SegmentFile f) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment first = a.allocate(SegmentDescriptor.DATA_OFFSET);
            return Libc.pread(f.fd(), first, 0) == first.byteSize()
                    && SegmentDescriptor.isHeaderPage(first.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    /** Unlinks f's path if no process holds f (LOCK_EX|LOCK_NB) and the path still names f. */
    private static boolean removeLocked(SegmentFile f, boolean dryRun) {
        if (!f.tryLockExclusive() || !f.stillNamed()) {
            return false;
        }
        if (!dryRun) {
            unlink(f.path());
        }
        return true;
    }

    private static void unlink(Path p) {
        int err = Libc.unlink(p.toString());
        if (err != 0 && err != Libc.ENOENT) {
            throw Libc.failure("unlink", p.toString(), err);
        }
    }

    /**
     * Removes the segment at path. Without {@code force} only if no process holds it (its
     * flock(LOCK_EX|LOCK_NB) succeeds); with it whoever is attached (they keep their mappings).
     * Either way only the file opened and checked here is unlinked. If no process held it, it is
     * shown to {@code before} just before (not when {@code force} removes it from under its users).
     *
     * @throws InvalidSegmentException if the file is not one of our segments (not a regular
     *         file, another user's, sparse, or without a valid control block)
     * @throws SegmentNotFoundException if nothing is there, or the name was removed or re-created
     *         meanwhile (the file now there is left alone)
     * @throws SharedArrayException if {@code !force} and live processes hold the segment; the
     *         message names their pids
     */
    public static Path remove(Path p, boolean force, BeforeRemove before) {
        try (SegmentFile f = SegmentFile.open(p, false, uid -> false, "remove")) {
            SegmentInfo info;
            try {
                info = SegmentScan.read(f, null);
            } catch (InvalidSegmentException e) {
                throw new InvalidSegmentException("refusing to remove " + p + ": " + e.getMessage());
            }
            boolean unused = f.tryLockExclusive();
            if (!unused && !force) {
                throw new SharedArrayException("refusing to remove " + p + ": it is in use by " + holders(info)
                        + "; use rm --force (SharedArrays.remove(handle)) to remove it anyway (they keep their mappings)");
            }
            if (!f.stillNamed()) {
                throw new SegmentNotFoundException("did not remove " + p + ": it was removed or re-created meanwhile; "
                        + "the file there now was left alone");
            }
            if (unused) {
                show(f, info, before);
            }
            unlink(p);
            return p;
        }
    }

    /** The live processes the attach slots and creator record, for messages. */
    private static String holders(SegmentInfo info) {
        List<Long> pids = new ArrayList<>();
        if (info.creator().alive()) {
            pids.add(info.creator().pid());
        }
        info.attached().stream().filter(SegmentInfo.Participant::alive).forEach(a -> {
            if (!pids.contains(a.pid())) {
                pids.add(a.pid());
            }
        });
        if (pids.isEmpty()) {
            return "a live process that has it open (its pid is not in the attach slots)";
        }
        return (pids.size() == 1 ? "pid " : "pids ") + pids.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
