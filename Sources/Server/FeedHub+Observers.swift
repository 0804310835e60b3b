import Positioning

/// A consumer of every output the hub publishes that is not a feed subscriber with a queue of lines:
/// it gets each output as a value, once, on the loop thread, and does its own encoding, filtering and
/// bounding (the MQTT publisher). It must not block.
protocol FeedOutputObserver: AnyObject {
    func observe(_ output: Output)
}

extension FeedHub {
    /// Adds an observer (on the loop thread).
    func addObserver(_ o: any FeedOutputObserver) {
        observers.append(o)
    }

    /// Removes an observer (on the loop thread).
    func removeObserver(_ o: any FeedOutputObserver) {
        observers.removeAll { $0 === o }
    }
}
