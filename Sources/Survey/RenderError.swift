/// Why a figure could not be drawn or written: cairo's status and what was being done.
public enum RenderError: Error, Equatable, CustomStringConvertible {
    case cairo(status: String, context: String)

    public var description: String {
        switch self { case .cairo(let status, let context): "cairo: \(status) while \(context)" }
    }
}
