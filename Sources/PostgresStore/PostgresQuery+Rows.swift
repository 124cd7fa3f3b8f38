import IdentityCore
import PostgresNIO
import StoreContracts

/// Pieces of SQL that more than one statement writes, as interpolations: each value is appended
/// as a bound parameter of the statement it lands in, so the pieces compose where
/// `PostgresQuery`s themselves do not.
extension PostgresQuery.StringInterpolation {
    /// `session`'s values, comma-separated, in the order of `PostgresStore.sessionColumns`:
    /// `INSERT INTO sessions (\(unescaped: sessionColumns)) VALUES (\(valuesOf: session))`.
    mutating func appendInterpolation(valuesOf session: LoginSession) throws {
        appendInterpolation(session.id)
        appendLiteral(", ")
        appendInterpolation(session.subject)
        appendLiteral(", ")
        appendInterpolation(session.userId)
        appendLiteral(", ")
        appendInterpolation(session.appKey)
        appendLiteral(", ")
        appendInterpolation(session.authServiceId)
        appendLiteral(", ")
        try appendInterpolation(session.storedAttributes)
        appendLiteral(", ")
        try appendInterpolation(session.sealedUpstream)
        appendLiteral(", ")
        appendInterpolation(session.upstreamExpiresAt?.pg)
        appendLiteral(", ")
        appendInterpolation(session.authTime.pg)
        appendLiteral(", ")
        appendInterpolation(session.createdAt.pg)
        appendLiteral(", ")
        appendInterpolation(session.expiresAt.pg)
        appendLiteral(", ")
        appendInterpolation(session.revokedAt?.pg)
        appendLiteral(", ")
        appendInterpolation(session.version)
        appendLiteral(", ")
        appendInterpolation(session.maxExpiresAt?.pg)
        appendLiteral(", ")
        appendInterpolation(session.userAgent)
        appendLiteral(", ")
        appendInterpolation(session.clientAddress)
        appendLiteral(", ")
        appendInterpolation(session.lastUsedAt?.pg)
        appendLiteral(", ")
        appendInterpolation(LoginSession.amrColumn(session.amr))
        appendLiteral(", ")
        appendInterpolation(session.upstreamSessionKey)
    }

    /// The update an attempt that was not a failure makes to the throttle's counters
    /// (`ThrottleReset`): the reset key's failures cleared, and both keys' reservation made at
    /// `reservedAt` given back. Stored keys are hashes, never empty, so a missing key matches no row.
    mutating func appendInterpolation(throttleUpdateFor reset: ThrottleReset?) {
        let cleared = reset?.reset ?? "", released = reset?.release ?? ""
        appendLiteral("UPDATE throttle SET count = CASE WHEN key_hash = ")
        appendInterpolation(cleared)
        appendLiteral(" THEN 0 ELSE count END, pending = ")
        appendInterpolation(pendingOf: "throttle", without: reset?.reservedAt.pg ?? 0)
        appendLiteral(" WHERE key_hash IN (")
        appendInterpolation(cleared)
        appendLiteral(", ")
        appendInterpolation(released)
        appendLiteral(")")
    }

    /// `table`'s `pending` reservations without one made at `stamp` (the first, when several were
    /// made at the same moment; unchanged when none was).
    mutating func appendInterpolation(pendingOf table: String, without stamp: Double) {
        let column = table + ".pending"
        appendLiteral("COALESCE(\(column)[:array_position(\(column), ")
        appendInterpolation(stamp)
        appendLiteral(") - 1] || \(column)[array_position(\(column), ")
        appendInterpolation(stamp)
        appendLiteral(") + 1:], \(column))")
    }
}
