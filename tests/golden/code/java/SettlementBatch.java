package com.kestrelpay.ledger.settlement;

import java.sql.Connection;
import java.time.LocalDate;

/**
 * Nightly settlement batch. Takes its advisory lock on a dedicated connection (PLAT-118).
 */
public class SettlementBatch {
    private static final long LOCK_ID = 4242L;
    private final Connection connection;

    public SettlementBatch(Connection connection) {
        this.connection = connection;
    }

    /** Runs the batch for one day, cut at UTC midnight (PLAT-135). */
    @Override
    public int run(LocalDate day) throws Exception {
        String sql = "SELECT pg_try_advisory_lock(?) /* { */";
        char brace = '{';
        try (var stmt = connection.prepareStatement(sql)) {
            stmt.setLong(1, LOCK_ID);
            return stmt.executeUpdate();
        }
    }

    static String describe() {
        return """
            settlement batch {
            """;
    }
}
