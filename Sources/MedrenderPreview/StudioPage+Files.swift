/// A file the studio's page links to, served beside it: its path on the server, its type and its
/// bytes, which are those of the package's file (`Resources/`), compiled into the program.
public struct StudioFile: Sendable {
    /// The path the page names it by, such as `/studio/studio.js`.
    public let path: String
    /// The `Content-Type` it is served with.
    public let contentType: String
    public let bytes: [UInt8]
}

extension StudioPage {
    /// The page's script (`Resources/studio.js`): the form and the YAML kept in sync, the plan asked
    /// for as they change, errors shown where they are, the circle and the timeline redrawn,
    /// listening from a point. It reads the debounce from its own tag's `data-debounce-ms`.
    public static let script = StudioFile(path: "/studio/studio.js", contentType: "text/javascript; charset=utf-8",
                                          bytes: PackageResources.studio_js)

    /// The page's style (`Resources/studio.css`); the circle's colour for each kind of phase is
    /// written into the page, from the plot's colours.
    public static let style = StudioFile(path: "/studio/studio.css", contentType: "text/css; charset=utf-8",
                                         bytes: PackageResources.studio_css)

    /// The files the page links to.
    public static var files: [StudioFile] { [script, style] }
}
