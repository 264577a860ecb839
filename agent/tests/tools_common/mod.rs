//! Helpers shared by the tool tests (`tools_*.rs`).
#![allow(dead_code, clippy::unwrap_used)]

pub mod reference;

/// An encoded test image of `width` × `height` with some variety in its pixels.
pub fn encoded_image(width: u32, height: u32, format: image::ImageFormat) -> Vec<u8> {
    let pixels = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 251) as u8, (y % 241) as u8, ((x * y) % 239) as u8])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(pixels)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}
