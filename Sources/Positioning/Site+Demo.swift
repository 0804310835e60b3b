/// The demo warehouse site, embedded so that `sextant demo` runs from anywhere. It is the content of
/// `Sites/demo-warehouse.json`, byte for byte (a test checks that they agree; regenerate this file with
/// `scripts/embed-demo-site` after editing the JSON).
extension Site {
    /// The JSON text of the embedded demo warehouse.
    public static let demoWarehouseJSON = #"""
{
  "id": "demo-warehouse",
  "name": "Demo warehouse",
  "dimensions": 2,
  "tagHeight": 1.2,
  "bounds": {"min": [0, 0, 0], "max": [40, 25, 8]},
  "anchors": [
    {"id": "U1", "position": [0.5, 0.5, 4], "technologies": ["uwb"], "orientation": {"yaw": 45, "pitch": 20, "roll": 0}, "fieldOfView": 120},
    {"id": "U2", "position": [39.5, 0.5, 4], "technologies": ["uwb"], "orientation": {"yaw": 135, "pitch": 20, "roll": 0}, "fieldOfView": 120},
    {"id": "U3", "position": [39.5, 24.5, 4], "technologies": ["uwb"], "orientation": {"yaw": -135, "pitch": 20, "roll": 0}, "fieldOfView": 120},
    {"id": "U4", "position": [0.5, 24.5, 4], "technologies": ["uwb"], "orientation": {"yaw": -45, "pitch": 20, "roll": 0}, "fieldOfView": 120},
    {"id": "U5", "position": [13, 12.5, 4.2], "technologies": ["uwb"], "rangeBias": 0.05, "rangeStd": 0.08},
    {"id": "U6", "position": [27, 12.5, 4.2], "technologies": ["uwb"]},
    {"id": "C1", "position": [20, 0.3, 3.8], "technologies": ["cs"], "rangeStd": 0.4},
    {"id": "C2", "position": [39.7, 12.5, 3.8], "technologies": ["cs"], "rangeStd": 0.4},
    {"id": "C3", "position": [20, 24.7, 3.8], "technologies": ["cs"], "rangeStd": 0.4},
    {"id": "C4", "position": [0.3, 12.5, 3.8], "technologies": ["cs"], "rangeStd": 0.4},
    {"id": "D1", "position": [20, 12.5, 4.5], "technologies": ["uwb", "cs"]}
  ],
  "zones": [
    {"id": "dock", "name": "Loading dock", "polygon": [[0, 0], [14, 0], [14, 5], [0, 5]]},
    {"id": "cold", "name": "Cold store", "polygon": [[30, 17], [40, 17], [40, 25], [30, 25]]}
  ]
}
"""#

    /// The embedded demo warehouse: 40 × 25 m, 2-D, UWB anchors (some with direction) and Channel
    /// Sounding anchors, two zones.
    public static var demoWarehouse: Site {
        // The text is a constant checked by the tests; a failure here is a build defect, not bad input.
        try! Site(json: Array(demoWarehouseJSON.utf8) + [10], source: "embedded demo-warehouse.json")
    }
}
