package dev.sharedarrays.internal.segment;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The arrays this process has open. A shutdown hook closes them on normal exit: owners of
 * non-persistent arrays destroy them, attachments free their slots.
 */
public final class Registry {
    private static final Set<Segment> OPEN = ConcurrentHashMap.newKeySet();
    private static volatile boolean hooked;

    private Registry() {
    }

    static void add(Segment s) {
        if (!hooked) {
            synchronized (Registry.class) {
                if (!hooked) {
                    Runtime.getRuntime().addShutdownHook(new Thread(Registry::closeAll, "shared-arrays-cleanup"));
                    hooked = true;
                }
            }
        }
        OPEN.add(s);
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
        for (Segment s : open()) {
            try {
                s.close();
            } catch (RuntimeException e) {
                // best effort at exit; sweep cleans what remains
            }
        }
    }
}
