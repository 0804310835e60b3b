/// The order in which a service receives a run's events when every anchor's gateway sends its
/// measurements in batches, as real gateways do, rather than each line the moment it is measured.
///
/// Anchor `a` sends every `batch` seconds at its own phase (drawn from the run's seed): an event
/// measured at `t` arrives at the anchor's first send time at or after `t`. Events arrive in the order
/// of their arrival times; a batch's events keep their time order. Lines of one tag from different
/// anchors therefore reach the engine out of time order, by up to one batch. Motion hints, which come
/// from the tag and not from an anchor, arrive at their own time.
struct GatewayDelivery {
    private let batch: Nanoseconds
    private let phases: [Nanoseconds]
    private var anchorIndex: [String: Int]
    /// Held events with their arrival time and a sequence number (the tie-break: generation order).
    private var held: [(arrival: Nanoseconds, sequence: Int, event: Event)] = []
    private var earliest: Nanoseconds = .max
    private var sequence = 0

    init(anchors: [Anchor], batch seconds: Double, seed: UInt64) {
        let period = Swift.max(1, Nanoseconds((seconds * 1e9).rounded()))
        batch = period
        var rng = SeededRandom(seed: seed, stream: 0x6761_7465_7761_7973)   // "gateways"
        phases = anchors.map { _ in Nanoseconds(rng.nextUniform() * Double(period)) }
        anchorIndex = [:]
        for (i, a) in anchors.enumerated() where anchorIndex[a.id] == nil { anchorIndex[a.id] = i }
    }

    /// When the event reaches the service.
    private func arrival(of e: Event) -> Nanoseconds {
        let anchor: String
        switch e {
        case .ranging(let r): anchor = r.anchor
        case .removed(_, let a, _, _, _), .session(_, let a, _, _, _): anchor = a
        case .motion: return e.time
        }
        guard let a = anchorIndex[anchor] else { return e.time }
        let phase = phases[a]
        let periods = (e.time - phase + batch - 1).dividedFloor(by: batch)
        return phase + periods * batch
    }

    /// Takes the next generated event (in time order) and hands `deliver` every held event that has
    /// arrived by then, in arrival order.
    mutating func add<E: Error>(_ e: Event, deliver: (Event) throws(E) -> Void) throws(E) {
        try release(upTo: e.time, deliver)
        let at = arrival(of: e)
        held.append((at, sequence, e))
        sequence += 1
        earliest = Swift.min(earliest, at)
    }

    /// Hands over everything still held (the end of the run).
    mutating func finish<E: Error>(deliver: (Event) throws(E) -> Void) throws(E) {
        try release(upTo: .max, deliver)
    }

    /// Events arriving before `time` are final: every later event is measured, so arrives, at or after it.
    private mutating func release<E: Error>(upTo time: Nanoseconds, _ deliver: (Event) throws(E) -> Void) throws(E) {
        guard earliest < time || time == .max else { return }
        var ready: [(arrival: Nanoseconds, sequence: Int, event: Event)] = []
        var kept: [(arrival: Nanoseconds, sequence: Int, event: Event)] = []
        kept.reserveCapacity(held.count)
        earliest = .max
        for h in held {
            if h.arrival < time || time == .max {
                ready.append(h)
            } else {
                kept.append(h)
                earliest = Swift.min(earliest, h.arrival)
            }
        }
        held = kept
        ready.sort { ($0.arrival, $0.sequence) < ($1.arrival, $1.sequence) }
        for h in ready { try deliver(h.event) }
    }
}

private extension Nanoseconds {
    /// Floor division for a positive divisor.
    func dividedFloor(by d: Nanoseconds) -> Nanoseconds {
        let q = self / d
        return (self % d != 0 && self < 0) ? q - 1 : q
    }
}
