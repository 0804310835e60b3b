/// The file formats a figure is written in, chosen by the output file's extension.
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case png, svg, pdf

    /// The format of a path by its extension (case-insensitive); nil for any other.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: ".") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }

    public var description: String { rawValue.uppercased() }
}
