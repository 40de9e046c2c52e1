package dev.sharedarrays.spark.internal;

import org.apache.spark.sql.connector.read.streaming.Offset;

/** How many messages a queue stream has taken in all (its runs before a restart included): its offsets. */
final class QueueOffset extends Offset {
    final long taken;

    QueueOffset(long taken) {
        this.taken = taken;
    }

    static QueueOffset parse(String json) {
        String digits = json.replaceAll("[^0-9]", "");
        if (digits.isEmpty()) {
            throw new IllegalArgumentException("not an offset of a sharedarrays queue stream: " + json);
        }
        return new QueueOffset(Long.parseLong(digits));
    }

    @Override
    public String json() {
        return "{\"taken\":" + taken + "}";
    }
}
