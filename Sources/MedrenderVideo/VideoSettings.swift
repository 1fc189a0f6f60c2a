import Foundation
import Medrender
import MedrenderCore

/// The containers a video is written in, chosen by the output's extension.
public enum VideoContainer: String, Hashable, Sendable, CaseIterable, Codable {
    /// MP4: H.264 (libx264) and AAC.
    case mp4
    /// WebM: VP9 (libvpx) and Opus.
    case webm

    /// The container for `path`'s extension, or nil when it is not a video container medrender writes.
    public static func forPath(_ path: String) -> VideoContainer? {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return VideoContainer(rawValue: name[name.index(after: dot)...].lowercased())
    }

    /// The MIME type a server gives it.
    public var mimeType: String {
        switch self {
        case .mp4: "video/mp4"
        case .webm: "video/webm"
        }
    }
}

/// A picture size in pixels: a name (`720p`, `1080p`, `square`, `vertical`) or `WIDTHxHEIGHT`.
public struct VideoSize: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    /// The sizes by name: 720p (the default), 1080p, square 1080×1080 (social) and 9:16 vertical 1080×1920.
    public static let named: [(name: String, size: VideoSize)] = [
        ("720p", VideoSize(width: 1280, height: 720)),
        ("1080p", VideoSize(width: 1920, height: 1080)),
        ("square", VideoSize(width: 1080, height: 1080)),
        ("vertical", VideoSize(width: 1080, height: 1920)),
    ]

    public static let standard = VideoSize(width: 1280, height: 720)
    /// The narrowest and widest side, in pixels.
    public static let sides = 128...3840

    /// The size `text` names, or a one-line error saying what to give.
    public static func parse(_ text: String) throws(RenderError) -> VideoSize {
        let lowered = text.lowercased()
        if let found = named.first(where: { $0.name == lowered }) { return found.size }
        let parts = lowered.split(separator: "x", omittingEmptySubsequences: false)
        let names = named.map(\.name).joined(separator: ", ")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw RenderError("{size=}\(text) is not a size; give \(names) or WIDTHxHEIGHT such as 640x360", category: .usage)
        }
        let size = VideoSize(width: width, height: height)
        try size.validate()
        return size
    }

    /// Checks that each side is within `sides` and even (the pictures are 4:2:0, halved both ways).
    public func validate() throws(RenderError) {
        for (side, value) in [("width", width), ("height", height)] {
            guard Self.sides.contains(value) else {
                throw RenderError("{size=}\(self): the \(side) \(value) px is out of range; give \(Self.sides.lowerBound) to \(Self.sides.upperBound) px",
                                 category: .usage)
            }
            guard value % 2 == 0 else {
                throw RenderError("{size=}\(self): the \(side) \(value) px is odd; give an even number of pixels", category: .usage)
            }
        }
    }

    public var description: String { "\(width)x\(height)" }
}

/// What is behind the circle.
public enum VideoBackground: Hashable, Sendable, Codable {
    /// One colour, red, green and blue 0…1.
    case colour(Double, Double, Double)
    /// A vertical gradient from the top colour to the bottom one.
    case gradient(top: [Double], bottom: [Double])
    /// A PNG image, scaled to cover the picture and blurred.
    case image(path: String)

    /// The default: dusk blue to a pale sky.
    public static let standard = VideoBackground.gradient(top: [0.17, 0.24, 0.36], bottom: [0.55, 0.66, 0.76])

    /// The background `text` names: `#rrggbb`, `#rrggbb-#rrggbb` (a gradient, top to bottom) or
    /// the path of a PNG image.
    public static func parse(_ text: String) throws(RenderError) -> VideoBackground {
        if text.hasPrefix("#") {
            let parts = text.split(separator: "-").map(String.init)
            let colours = parts.compactMap(Self.colour)
            guard colours.count == parts.count, (1...2).contains(colours.count) else {
                throw RenderError("{background=}\(text) is not a colour; give #rrggbb, #rrggbb-#rrggbb (a gradient) or a PNG file",
                                 category: .usage)
            }
            if colours.count == 1 { return .colour(colours[0][0], colours[0][1], colours[0][2]) }
            return .gradient(top: colours[0], bottom: colours[1])
        }
        return .image(path: text)
    }

    /// `#rrggbb` as three values 0…1.
    static func colour(_ text: String) -> [Double]? {
        guard text.count == 7, text.hasPrefix("#"), let value = UInt32(text.dropFirst(), radix: 16) else { return nil }
        return [Double((value >> 16) & 0xFF) / 255, Double((value >> 8) & 0xFF) / 255, Double(value & 0xFF) / 255]
    }
}

/// How a video is made: its container, size, frame rate and background.
public struct VideoSettings: Hashable, Sendable, Codable {
    public var container: VideoContainer
    public var size: VideoSize
    /// Frames per second, 1…60, default 30.
    public var fps: Int
    public var background: VideoBackground

    public static let fpsRange = 1...60

    public init(container: VideoContainer, size: VideoSize = .standard, fps: Int = 30, background: VideoBackground = .standard) {
        self.container = container
        self.size = size
        self.fps = fps
        self.background = background
    }

    /// Checks every setting; the error names the option to change.
    public func validate() throws(RenderError) {
        try size.validate()
        guard Self.fpsRange.contains(fps) else {
            throw RenderError("{fps=}\(fps) is out of range; give \(Self.fpsRange.lowerBound) to \(Self.fpsRange.upperBound) frames a second",
                             category: .usage)
        }
    }

    /// The container for an output path, or the one-line error for a name that is not a video.
    public static func container(for path: String, option: String = "{output=}") throws(RenderError) -> VideoContainer {
        guard let container = VideoContainer.forPath(path) else {
            throw RenderError("\(option)\(option.hasSuffix("}") ? "" : " ")\(path) is not a video container medrender writes; end the name in .mp4 or .webm",
                             category: .usage)
        }
        return container
    }
}
