public import Positioning

/// One stored zone event.
public struct ZoneEventRecord: Sendable, Equatable {
    /// The site id.
    public var site: String
    /// The tag id.
    public var tag: String
    /// The zone id.
    public var zone: String
    /// Enter or exit.
    public var event: ZoneEvent
    /// Unix nanoseconds.
    public var time: Nanoseconds

    /// A zone event. - Parameters: ids, the event, and its time in Unix nanoseconds.
    public init(site: String, tag: String, zone: String, event: ZoneEvent, time: Nanoseconds) {
        self.site = site; self.tag = tag; self.zone = zone; self.event = event; self.time = time
    }
}

extension HistoryStore {
    /// A site's zone events with `from <= time < to`, in time then insertion order.
    /// - Parameters:
    ///   - site: the site id.
    ///   - from: inclusive start, Unix nanoseconds; nil for the beginning.
    ///   - to: exclusive end, Unix nanoseconds; nil for no end.
    public func zoneEvents(site: String, from: Nanoseconds? = nil, to: Nanoseconds? = nil) throws -> [ZoneEventRecord] {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql: """
                SELECT tag, zone, event, t_ns FROM zone_events
                WHERE site = ?1 AND t_ns >= ?2 AND t_ns < ?3 ORDER BY t_ns, rowid
                """)
            try statement.bind(site, at: 1)
            try statement.bind(from ?? .min, at: 2)
            try statement.bind(to ?? .max, at: 3)
            var events: [ZoneEventRecord] = []
            try statement.forEachRow { row in
                guard let event = ZoneEvent(rawValue: row.string(at: 2) ?? "") else { return }
                events.append(ZoneEventRecord(site: site, tag: row.string(at: 0) ?? "", zone: row.string(at: 1) ?? "",
                                              event: event, time: row.int64(at: 3)))
            }
            return events
        }
    }
}

/// Entries, exits and time inside of one tag in one zone over a time range.
public struct ZoneDwell: Sendable, Equatable {
    /// The tag id.
    public var tag: String
    /// The zone id.
    public var zone: String
    /// Enter events in the range.
    public var entries: Int
    /// Exit events in the range.
    public var exits: Int
    /// Total time inside within the range, nanoseconds (see `summarize`).
    public var dwell: Nanoseconds
    /// True when the tag is still inside at the end of the events (its last event is an enter).
    public var inside: Bool

    /// Sums zone events per (tag, zone), ordered by tag then zone.
    ///
    /// A stay runs from an enter to the next exit. A stay still open at the end counts until `to`
    /// when given (else it adds nothing); an exit with no enter before it in the range (the tag was
    /// inside at `from`) counts from `from` when given (else it adds nothing).
    /// - Parameters:
    ///   - events: zone events in time order.
    ///   - from: the range's start, Unix nanoseconds, or nil.
    ///   - to: the range's end, Unix nanoseconds, or nil.
    public static func summarize(_ events: [ZoneEventRecord], from: Nanoseconds?, to: Nanoseconds?) -> [ZoneDwell] {
        struct Key: Hashable { var tag: String; var zone: String }
        var rows: [Key: ZoneDwell] = [:]
        var enteredAt: [Key: Nanoseconds?] = [:]  // absent: no event yet; nil value: outside
        for e in events {
            let key = Key(tag: e.tag, zone: e.zone)
            var row = rows[key] ?? ZoneDwell(tag: e.tag, zone: e.zone, entries: 0, exits: 0, dwell: 0, inside: false)
            switch e.event {
            case .enter:
                row.entries += 1
                if enteredAt[key] ?? nil == nil { enteredAt[key] = .some(e.time) }
                row.inside = true
            case .exit:
                row.exits += 1
                let start: Nanoseconds?? = enteredAt[key]
                if let start { if let s = start { row.dwell = row.dwell.saturatingAdd(e.time.saturatingSubtract(s)) } } else if let from { row.dwell = row.dwell.saturatingAdd(e.time.saturatingSubtract(from)) }
                enteredAt[key] = .some(nil)
                row.inside = false
            }
            rows[key] = row
        }
        if let to {
            for (key, start) in enteredAt { if let s = start { rows[key]!.dwell += max(0, to - s) } }
        }
        return rows.values.sorted { ($0.tag, $0.zone) < ($1.tag, $1.zone) }
    }
}
