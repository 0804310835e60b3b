import Foundation
import Testing
import Numerics
import Positioning
@testable import Survey

/// The coverage figure in PNG, SVG and PDF: sizes, colours, legend, and the layout rules.
struct RenderingTests {
    static let map = CoverageMap(site: Site.demoWarehouse, resolution: 1)
    static let map3D = CoverageMap(site: Site.hall, resolution: 2)

    @Test func pngDecodesWithTheLayoutSize() throws {
        let layout = CoverageFigure.layout(Self.map)
        // 40 × 25 m into at most 800 × 540 px: 20 px per metre, 800 × 500 px of map.
        #expect(layout.scale == 20 && layout.mapWidth == 800 && layout.mapHeight == 500)
        let png = try #require(DecodedPNG(try CoverageFigure.render(Self.map, format: .png)))
        #expect(png.width == Int(layout.width) && png.height == Int(layout.height))
        #expect(png.width == 1098 && png.height == 608)
    }

    @Test func cellsHaveTheirScaleColour() throws {
        let layout = CoverageFigure.layout(Self.map)
        let png = try #require(DecodedPNG(try CoverageFigure.render(Self.map, format: .png)))
        let scale = ColorScale()
        for (x, y) in [(25.5, 7.5), (8.5, 8.5), (33.5, 9.5)] {    // away from anchors, zones and labels
            let cell = try #require(Self.map.cell(x: x, y: y))
            let p = layout.pixel(x, y)
            #expect(png.pixel(Int(p.x), Int(p.y)) == scale.color(cell.sigma), "cell at \(x), \(y)")
        }
    }

    @Test func noFixCellsAreGrey() throws {
        var site = Site.demoWarehouse
        site.anchors = site.anchors.filter { ["U1", "C1", "C4"].contains($0.id) }
        let map = CoverageMap(site: site, resolution: 1)
        let p = CoverageFigure.layout(map).pixel(38.5, 22.5)
        let png = try #require(DecodedPNG(try CoverageFigure.render(map, format: .png)))
        #expect(png.pixel(Int(p.x), Int(p.y)) == ColorScale.noFix)
    }

    @Test func legendBarRunsFromGoodToBad() throws {
        let layout = CoverageFigure.layout(Self.map)
        let png = try #require(DecodedPNG(try CoverageFigure.render(Self.map, format: .png)))
        let x = Int(layout.legendX) + 9
        let top = layout.top + CoverageFigure.barTop, h = CoverageFigure.barHeight
        let scale = ColorScale()
        let high = png.pixel(x, Int(top) + 2), low = png.pixel(x, Int(top + h) - 2)
        #expect(high.r > 150 && high.g < 40)          // dark red: σ of metres
        #expect(low.g > 90 && low.r < 20)             // dark green: centimetres
        // The row of the 0.3 m tick has the 0.3 m colour (within the bar's 2-pixel steps: 3 levels).
        let c = png.pixel(x, Int(top + h * (1 - scale.fraction(0.3)))), want = scale.color(0.3)
        #expect(abs(Int(c.r) - Int(want.r)) <= 3 && abs(Int(c.g) - Int(want.g)) <= 3 && abs(Int(c.b) - Int(want.b)) <= 3)
        #expect(png.pixel(x, Int(top + h + 18)) == ColorScale.noFix)   // the "no fix" swatch under the bar
    }

    @Test func svgParsesWithTheLayoutSize() throws {
        let layout = CoverageFigure.layout(Self.map)
        let svg = try #require(parseSVGRoot(try CoverageFigure.render(Self.map, format: .svg)))
        #expect(svg.name == "svg")
        #expect(svg.attributes["width"] == "\(Int(layout.width))pt" && svg.attributes["height"] == "\(Int(layout.height))pt")
        #expect(svg.elements > 1000)   // 40 × 25 cells, the legend, the glyphs of the labels
    }

    @Test func pdfIsAPDF() throws {
        let pdf = try CoverageFigure.render(Self.map, format: .pdf)
        #expect(String(decoding: pdf.prefix(5), as: UTF8.self) == "%PDF-")
        #expect(String(decoding: pdf.suffix(6), as: UTF8.self).contains("%%EOF"))
    }

    @Test func formatFollowsTheExtension() {
        #expect(ImageFormat(path: "a/b.PNG") == .png && ImageFormat(path: "x.svg") == .svg && ImageFormat(path: "y.pdf") == .pdf)
        #expect(ImageFormat(path: "z.jpeg") == nil && ImageFormat(path: "noextension") == nil)
    }

    @Test func garbageIsNotAPNG() { #expect(DecodedPNG(Array("not a png".utf8)) == nil) }

    @Test func mapHasAxisTitlesLegendAndTicks() throws {
        let texts = Set(try CoverageFigure.canvas(Self.map, format: .png).labels.map(\.text))
        for t in ["x (m)", "y (m)", "Expected σ", "No fix possible", "0.3 m", "Anchors", "UWB", "Channel Sounding",
                  "UWB + Channel Sounding", "Field of view (AoA)", "Zone", "U1", "D1", "Loading dock", "Cold store", "0", "40", "25"] {
            #expect(texts.contains(t), "missing label \(t)")
        }
    }

    @Test func anchorsShowTheirHeightOn3DSites() throws {
        let texts = Set(try CoverageFigure.canvas(Self.map3D, format: .png).labels.map(\.text))
        for a in Site.hall.anchors { #expect(texts.contains("\(a.id)  z \(TextFormat.fixed(a.position.z, 1)) m"), "\(a.id)") }
        #expect(texts.contains("Labels: id, height z"))
        // 2-D sites label anchors by id alone.
        #expect(try CoverageFigure.canvas(Self.map, format: .png).labels.contains { $0.text == "U5" })
    }

    @Test func labelsCoverNoDataNorEachOther() throws {
        for map in [Self.map, Self.map3D] {
            let violations = layoutViolations(try CoverageFigure.canvas(map, format: .png))
            #expect(violations.isEmpty, "\(map.site.id): \(violations.prefix(5))")
        }
    }

    /// Anchors in a tight cluster: a label beside each disc would cover its neighbours.
    @Test func crowdedAnchorLabelsFindFreePlaces() throws {
        var site = Site.demoWarehouse
        let base = Vec3(20, 12, 4)
        for (k, (dx, dy)) in [(0.6, 0.0), (-0.6, 0.0), (0.0, 0.6), (0.0, -0.6), (0.6, 0.6), (-0.6, -0.6)].enumerated() {
            site.anchors.append(Anchor(id: "K\(k + 1)", position: base + Vec3(dx, dy, 0), technologies: [.uwb]))
        }
        let violations = layoutViolations(try CoverageFigure.canvas(CoverageMap(site: site, resolution: 2), format: .png))
        #expect(violations.isEmpty, "\(violations.prefix(5))")
    }

    @Test func segmentHitTest() {
        let box = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(box.intersects(segment: Point(-5, 5), Point(15, 5)))      // straight through
        #expect(box.intersects(segment: Point(2, 2), Point(3, 3)))        // inside
        #expect(!box.intersects(segment: Point(-5, -1), Point(15, -1)))   // above
        #expect(!box.intersects(segment: Point(12, 0), Point(20, 10)))    // beside
        #expect(box.intersects(segment: Point(-1, 8), Point(8, -1)))      // cuts a corner
        #expect(!box.intersects(segment: Point(-3, 2), Point(2, -3)))     // passes a corner outside
    }
}
