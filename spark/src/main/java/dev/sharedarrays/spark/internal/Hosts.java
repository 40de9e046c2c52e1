package dev.sharedarrays.spark.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** This host's name, as the partitions of an array here prefer and as messages name it. */
final class Hosts {
    private Hosts() {
    }

    static String name() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
