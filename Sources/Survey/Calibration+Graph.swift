import Numerics
import Positioning

/// The averaged range between two anchors (site indices `i < j`), metres.
struct PairRange: Equatable {
    var i: Int, j: Int
    var distance: Double
    /// 1-σ of the average, metres.
    var std: Double
    var count: Int
}

/// The anchor-to-anchor range graph: averaged pairs and the checks that decide whether it can be solved.
struct RangeGraph {
    let site: Site
    let pairs: [PairRange]
    /// Distinct peers per anchor (site order).
    let peers: [Int]
    /// Ranges used (after dropping self-ranges and unknown ids).
    let ranges: Int

    /// Averages the ranges of each unordered pair (inverse-variance weighted, both directions together).
    init(site: Site, ranges: [AnchorRange]) {
        self.site = site
        var sums: [Int: (w: Double, wd: Double, n: Int)] = [:]
        let n = site.anchors.count
        var used = 0
        for r in ranges {
            guard let a = site.anchorIndex[r.from], let b = site.anchorIndex[r.to], a != b,
                  r.distance.isFinite, r.std > 0 else { continue }
            let key = min(a, b) * n + max(a, b)
            let w = 1 / (r.std * r.std)
            let s = sums[key] ?? (0, 0, 0)
            sums[key] = (s.w + w, s.wd + w * r.distance, s.n + 1)
            used += 1
        }
        self.ranges = used
        pairs = sums.keys.sorted().map { key in
            let s = sums[key]!
            return PairRange(i: key / n, j: key % n, distance: s.wd / s.w, std: (1 / s.w).squareRoot(), count: s.n)
        }
        var peers = [Int](repeating: 0, count: n)
        for p in pairs { peers[p.i] += 1; peers[p.j] += 1 }
        self.peers = peers
    }

    /// Anchors that take part (have at least one pair), in site order.
    var participants: [Int] { (0..<site.anchors.count).filter { peers[$0] > 0 } }

    /// The connected components of the given anchors, each sorted, largest first.
    func components(of nodes: [Int]) -> [[Int]] {
        var parent = Dictionary(uniqueKeysWithValues: nodes.map { ($0, $0) })
        func root(_ x: Int) -> Int {
            var r = x
            while parent[r]! != r { r = parent[r]! }
            return r
        }
        for p in pairs where parent[p.i] != nil && parent[p.j] != nil {
            let a = root(p.i), b = root(p.j)
            if a != b { parent[a] = b }
        }
        var groups: [Int: [Int]] = [:]
        for x in nodes { groups[root(x), default: []].append(x) }
        return groups.values.map { $0.sorted() }.sorted { $0.count != $1.count ? $0.count > $1.count : $0[0] < $1[0] }
    }

    /// Checks that the configuration can be solved with these reference anchors.
    func validate(fixed: [Int], dimensions d: Int) throws(CalibrationError) {
        guard !pairs.isEmpty else { throw .noRanges }
        let nodes = Array(Set(participants).union(fixed)).sorted()
        for a in nodes where !fixed.contains(a) && peers[a] < d {
            throw .tooFewRanges(anchor: site.anchors[a].id, have: peers[a], need: d)
        }
        let comps = components(of: nodes)
        if comps.count > 1 { throw .disconnected(components: comps.map { $0.map { site.anchors[$0].id } }) }
    }

    /// The full distance matrix of `nodes` (row-major), horizontal in 2-D mode (using the site file's
    /// heights), with missing pairs filled by shortest paths through the graph (Floyd–Warshall).
    func distanceMatrix(_ nodes: [Int], dimensions d: Int) -> [Double] {
        let m = nodes.count
        let slot = Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1, $0) })
        var dist = [Double](repeating: .infinity, count: m * m)
        for k in 0..<m { dist[k * m + k] = 0 }
        for p in pairs {
            guard let a = slot[p.i], let b = slot[p.j] else { continue }
            var r = p.distance
            if d == 2 {
                let dz = site.anchors[p.i].position.z - site.anchors[p.j].position.z
                r = max(r * r - dz * dz, 0).squareRoot()
            }
            dist[a * m + b] = r; dist[b * m + a] = r
        }
        for k in 0..<m {
            for a in 0..<m where dist[a * m + k].isFinite {
                for b in 0..<m {
                    let via = dist[a * m + k] + dist[k * m + b]
                    if via < dist[a * m + b] { dist[a * m + b] = via }
                }
            }
        }
        return dist
    }
}
