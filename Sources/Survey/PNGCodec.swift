internal import CPNG

/// Why a PNG could not be written or read; carries libpng's own message.
public enum PNGError: Error, Equatable, CustomStringConvertible {
    /// libpng refused to encode the image.
    case encodeFailed(String)
    /// The bytes are not a PNG libpng can read.
    case decodeFailed(String)

    public var description: String {
        switch self {
        case .encodeFailed(let m): "PNG encoding failed: \(m)"
        case .decodeFailed(let m): "PNG decoding failed: \(m)"
        }
    }
}

/// PNG files through libpng's simplified API (`png_image_*`), which reports errors by return value,
/// so no `setjmp` crosses into Swift. The only file that calls libpng.
public enum PNGCodec {
    /// Encodes an RGB image as PNG bytes (8 bits per channel).
    public static func encode(_ image: Raster) throws(PNGError) -> [UInt8] {
        var png = makeImage(width: image.width, height: image.height)
        let stride = Int32(image.width * 3)
        var size = 0
        let sized = image.pixels.withUnsafeBytes { px in
            png_image_write_to_memory(&png, nil, &size, 0, px.baseAddress, stride, nil)
        }
        guard sized != 0, size > 0 else { throw .encodeFailed(message(png)) }
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBytes { buffer in
            image.pixels.withUnsafeBytes { px in
                png_image_write_to_memory(&png, buffer.baseAddress, &size, 0, px.baseAddress, stride, nil)
            }
        }
        guard written != 0 else { throw .encodeFailed(message(png)) }
        return Array(out[0..<size])
    }

    /// Decodes PNG bytes into an RGB image (any PNG colour type is converted to 8-bit RGB).
    public static func decode(_ bytes: [UInt8]) throws(PNGError) -> Raster {
        var png = makeImage(width: 0, height: 0)
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw .decodeFailed(message(png)) }
        png.format = UInt32(PNG_FORMAT_RGB)
        let width = Int(png.width), height = Int(png.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let finished = pixels.withUnsafeMutableBytes {
            png_image_finish_read(&png, nil, $0.baseAddress, Int32(width * 3), nil)
        }
        guard finished != 0 else {
            let m = message(png)
            png_image_free(&png)
            throw .decodeFailed(m)
        }
        return Raster(width: width, height: height, pixels: pixels)
    }

    private static func makeImage(width: Int, height: Int) -> png_image {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(width)
        png.height = UInt32(height)
        png.format = UInt32(PNG_FORMAT_RGB)
        return png
    }

    /// libpng's message buffer as a String.
    private static func message(_ png: png_image) -> String {
        var m = png.message
        return withUnsafeBytes(of: &m) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
