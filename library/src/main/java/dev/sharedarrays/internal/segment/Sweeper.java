package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Proc;

import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SharedArrayException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes segments: those whose processes all died (sweep), and one by path (rm). A file is
 * removed only if its control block validates (or it is the temporary file of a create that
 * died): anything else in a directory is never touched. Reading is {@link SegmentScan}'s.
 */
public final class Sweeper {
    private Sweeper() {
    }

    /** Removes dead segments and dead creates' temporary files in these directories; returns their paths. */
    public static List<Path> sweep(List<Path> directories, boolean dryRun) {
        List<Path> removed = new ArrayList<>();
        for (Path dir : directories) {
            for (Path p : SegmentScan.files(dir)) {
                String name = p.getFileName().toString();
                boolean dead;
                if (Names.isTemp(name)) {
                    long[] creator = Names.tempCreator(name);
                    dead = creator != null && !Proc.isAlive(creator[0], creator[1]);
                } else {
                    try {
                        SegmentInfo info = SegmentScan.read(p, null);
                        dead = !info.persistent() && !info.inUse();
                    } catch (SharedArrayException e) {
                        dead = false; // not ours, or damaged: never touched
                    }
                }
                if (dead) {
                    if (!dryRun) {
                        int err = Libc.unlink(p.toString());
                        if (err != 0 && err != Libc.ENOENT) {
                            throw Libc.failure("unlink", p.toString(), err);
                        }
                    }
                    removed.add(p);
                }
            }
        }
        return removed;
    }

    /**
     * Removes the segment at path, whoever is attached (they keep their mappings).
     *
     * @throws InvalidSegmentException if the file is not a shared-arrays segment
     * @throws dev.sharedarrays.SegmentNotFoundException if nothing is there
     */
    public static Path remove(Path p) {
        try {
            SegmentScan.read(p, null);
        } catch (InvalidSegmentException e) {
            throw new InvalidSegmentException("refusing to remove " + p + ": " + e.getMessage());
        }
        int err = Libc.unlink(p.toString());
        if (err != 0) {
            throw Libc.failure("unlink", p.toString(), err);
        }
        return p;
    }
}
