import Testing
import Numerics
import Positioning
@testable import Survey

/// Golden properties of the coverage figure, in SVG and PNG.
struct RenderingTests {
    static let map = CoverageMap(site: Site.demoWarehouse, resolution: 1)

    @Test func rasterSizeFollowsLayout() {
        let layout = CoverageFigure.layout(Self.map)
        let image = CoverageFigure.raster(Self.map)
        // 40 × 25 m into at most 800 × 560 px: 20 px per metre, 800 × 500 px of map.
        #expect(layout.scale == 20)
        #expect(image.width == Int(layout.width) && image.height == Int(layout.height))
        #expect(image.width == 970 && image.height == 584)
    }

    @Test func cellsHaveTheirScaleColour() throws {
        let layout = CoverageFigure.layout(Self.map)
        let image = CoverageFigure.raster(Self.map)
        let scale = ColorScale()
        for (x, y) in [(25.5, 7.5), (8.5, 8.5), (33.5, 9.5)] {    // away from anchors, zones and labels
            let cell = try #require(Self.map.cell(x: x, y: y))
            let p = layout.pixel(x, y)
            #expect(image.pixel(Int(p.0), Int(p.1)) == scale.color(cell.sigma), "cell at \(x), \(y)")
        }
    }

    @Test func noFixCellsAreGrey() throws {
        var site = Site.demoWarehouse
        site.anchors = site.anchors.filter { ["U1", "C1", "C4"].contains($0.id) }
        let map = CoverageMap(site: site, resolution: 1)
        let p = CoverageFigure.layout(map).pixel(38.5, 22.5)
        #expect(CoverageFigure.raster(map).pixel(Int(p.0), Int(p.1)) == ColorScale.noFix)
    }

    @Test func legendBarRunsFromGoodToBad() {
        let layout = CoverageFigure.layout(Self.map)
        let image = CoverageFigure.raster(Self.map)
        let x = Int(CoverageFigure.legendX(layout)) + 9
        let h = layout.mapHeight - 30
        let scale = ColorScale()
        let top = image.pixel(x, Int(layout.top) + 2), bottom = image.pixel(x, Int(layout.top + h) - 2)
        #expect(top.r > 150 && top.g < 40)           // dark red: σ of metres
        #expect(bottom.g > 90 && bottom.r < 20)      // dark green: centimetres
        // The row of the 0.3 m tick has the 0.3 m colour (to one row of the bar's resolution).
        let y = layout.top + h * (1 - scale.fraction(0.3))
        let c = image.pixel(x, Int(y)), want = scale.color(0.3)
        #expect(abs(Int(c.r) - Int(want.r)) <= 3 && abs(Int(c.g) - Int(want.g)) <= 3 && abs(Int(c.b) - Int(want.b)) <= 3)
        // The "no fix" swatch under the bar.
        #expect(image.pixel(x, Int(layout.top + h + 16)) == ColorScale.noFix)
    }

    @Test func svgHasCellsLegendAndAnchors() {
        let svg = String(decoding: CoverageFigure.svg(Self.map), as: UTF8.self)
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.contains("width=\"970.00\" height=\"584.00\""))
        #expect(svg.components(separatedBy: "<rect").count - 1 >= 1000)   // 40 × 25 cells + legend
        for label in ["no fix", "0.3 m", "1.0 m", "0.05 m", ">U1<", ">D1<", "Loading dock", "Cold store"] {
            #expect(svg.contains(label), "missing \(label)")
        }
        #expect(svg.contains(ColorScale().color(Self.map.cell(x: 25.5, y: 7.5)!.sigma).hex))
    }

    @Test func pngRoundTripsThroughLibpng() throws {
        let image = CoverageFigure.raster(Self.map)
        let png = try PNGCodec.encode(image)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let back = try PNGCodec.decode(png)
        #expect(back == image)
    }

    @Test func garbageIsNotAPNG() {
        #expect(throws: PNGError.self) { try PNGCodec.decode(Array("not a png".utf8)) }
    }

    @Test func bitmapTextDrawsGlyphs() {
        var image = Raster(width: 20, height: 10)
        image.text("1", x: 0, y: 0, .black)
        #expect(image.pixel(2, 0) == .black && image.pixel(0, 0) == .white)   // the top of the "1" stroke
    }
}
