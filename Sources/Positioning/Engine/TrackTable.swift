/// A site's tag tracks by tag id: the tracks in a dense array (modified in place by number on the hot
/// path), numbered by a `NameIndex`.
struct TrackTable: Sendable {
    private var index = NameIndex()
    /// The tracks by number (see `number(of:)`); modify `tracks[n]` in place.
    var tracks: [TagTrack] = []

    var count: Int { tracks.count }
    /// The tag ids, by number.
    var tags: [String] { index.names }

    /// The number of a tag's track, or nil when the tag is not tracked.
    @inline(__always)
    func number(of tag: String) -> Int? { index.number(of: tag) }

    /// Adds the track of a tag that is not tracked; returns its number.
    @discardableResult
    mutating func insert(_ tag: String, _ track: TagTrack) -> Int {
        tracks.append(track)
        return index.insert(tag)
    }

    /// A tag's track; setting nil removes it (the last track takes over its number).
    subscript(tag: String) -> TagTrack? {
        get { number(of: tag).map { tracks[$0] } }
        set {
            if let newValue {
                if let n = number(of: tag) { tracks[n] = newValue } else { insert(tag, newValue) }
            } else if let r = index.remove(tag) {
                if let from = r.movedFrom { tracks.swapAt(r.removed, from) }
                tracks.removeLast()
            }
        }
    }

    /// Every tag with its track, in number order.
    var all: Zip2Sequence<[String], [TagTrack]> { zip(index.names, tracks) }
}
