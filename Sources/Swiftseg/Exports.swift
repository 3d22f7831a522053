// `import Swiftseg` brings the image library too: requests take and return its images, rectangles and points.
@_exported import SwiftsegImage
