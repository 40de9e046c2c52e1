package dev.sharedarrays.internal.segment;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The arrays this process has open. A shutdown hook closes them on normal exit: first what was
 * registered with {@link #atExit} (queues, then pools: their close says more than their
 * segment's, e.g. that a producer left rather than died), then the segments: owners of
 * non-persistent arrays destroy them, attachments free their slots.
 */
public final class Registry {
    /** What runs at exit before the segments are closed, in this order. */
    public enum ExitStage {
        QUEUES, POOLS
    }

    private static final Set<Segment> OPEN = ConcurrentHashMap.newKeySet();
    private static final Map<Runnable, ExitStage> AT_EXIT = new ConcurrentHashMap<>();
    private static volatile boolean hooked;

    private Registry() {
    }

    static void add(Segment s) {
        hook();
        OPEN.add(s);
    }

    private static void hook() {
        if (!hooked) {
            synchronized (Registry.class) {
                if (!hooked) {
                    Runtime.getRuntime().addShutdownHook(new Thread(Registry::closeAll, "shared-arrays-cleanup"));
                    hooked = true;
                }
            }
        }
    }

    /**
     * Runs {@code close} at normal exit in its stage, before the segments are closed, unless
     * {@link #forget} removes it first. The registry keeps {@code close} (and what it refers to)
     * until then: it should hold the object it closes weakly.
     */
    public static void atExit(Runnable close, ExitStage stage) {
        hook();
        AT_EXIT.put(close, stage);
    }

    /** Removes what {@link #atExit} registered (its object was closed). */
    public static void forget(Runnable close) {
        AT_EXIT.remove(close);
    }

    static void remove(Segment s) {
        OPEN.remove(s);
    }

    /** An open segment of this process with this id, for same-process attach of anonymous arrays. */
    public static Segment find(long id) {
        for (Segment s : OPEN) {
            if (s.facts().id() == id && s.isOwner()) {
                return s;
            }
        }
        return null;
    }

    /** The open segments, attachments before owners. */
    public static List<Segment> open() {
        List<Segment> out = new ArrayList<>(OPEN);
        out.sort((a, b) -> Boolean.compare(a.isOwner(), b.isOwner()));
        return out;
    }

    static void closeAll() {
        for (ExitStage stage : ExitStage.values()) {
            AT_EXIT.forEach((close, in) -> {
                if (in == stage) {
                    try {
                        close.run();
                    } catch (RuntimeException e) {
                        // best effort at exit; the segments are closed below all the same
                    }
                }
            });
        }
        for (Segment s : open()) {
            try {
                s.close();
            } catch (RuntimeException e) {
                // best effort at exit; sweep cleans what remains
            }
        }
    }
}
