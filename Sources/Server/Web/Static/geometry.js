// Geometry of the site frame: metres, x east, y north, z up; angles in radians. The site file gives
// angles in degrees (docs/protocol.md, "The site map").

/** Squared Mahalanobis radius of the 95 % region of a 2-D Gaussian: -2 ln(0.05) (chi-square, 2 dof). */
export const CHI2_95_2D = 5.991464547107979;

const DEG = Math.PI / 180;

/**
 * The anchor-to-site rotation R = Rz(yaw)·Ry(pitch)·Rx(roll) of a site-file orientation (degrees), as
 * a function mapping an anchor-frame vector [x, y, z] to the site frame.
 */
export function rotation(orientation) {
  const y = orientation.yaw * DEG, p = orientation.pitch * DEG, r = orientation.roll * DEG;
  const cy = Math.cos(y), sy = Math.sin(y), cp = Math.cos(p), sp = Math.sin(p), cr = Math.cos(r), sr = Math.sin(r);
  const m = [
    [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
    [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
    [-sp, cp * sr, cp * cr],
  ];
  return (v) => [
    m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
    m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
    m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2],
  ];
}

/** The plan-view heading (radians from +x, counter-clockwise) of an anchor's boresight, or null. */
export function boresightHeading(anchor) {
  if (!anchor.orientation) return null;
  const b = rotation(anchor.orientation)([1, 0, 0]);
  return Math.atan2(b[1], b[0]);
}

/**
 * The plan-view heading of a direction measured by an anchor (`azimuth` in the anchor frame, elevation
 * unknown and taken as 0), or null when the anchor has no orientation.
 */
export function azimuthHeading(anchor, azimuth) {
  if (!anchor.orientation || azimuth == null) return null;
  const d = rotation(anchor.orientation)([Math.cos(azimuth), Math.sin(azimuth), 0]);
  return Math.atan2(d[1], d[0]);
}

/**
 * The 95 % ellipse of a 2×2 position covariance (m²): semi-axes in metres and the major axis's angle
 * from +x, counter-clockwise, in radians.
 */
export function ellipse95(xx, xy, yy) {
  const mean = 0.5 * (xx + yy);
  const d = Math.sqrt(0.25 * (xx - yy) * (xx - yy) + xy * xy);
  return {
    major: Math.sqrt(CHI2_95_2D * Math.max(mean + d, 0)),
    minor: Math.sqrt(CHI2_95_2D * Math.max(mean - d, 0)),
    angle: 0.5 * Math.atan2(2 * xy, xx - yy),
  };
}

/**
 * The radius in the plan of a range `distance` (metres, anchor to tag) at the tag height: on a 2-D
 * site the tags are carried at `tagHeight`, so the circle is where the sphere meets that plane. On a
 * 3-D site the height is unknown and the distance itself is drawn.
 */
export function planRangeRadius(site, anchor, distance) {
  if (site.dimensions !== 2 || site.tagHeight == null) return distance;
  const dz = anchor.position[2] - site.tagHeight;
  return Math.sqrt(Math.max(0, distance * distance - dz * dz));
}

/** Whether the point (x, y) lies inside the polygon [[x, y], …] (even-odd rule). */
export function insidePolygon(x, y, polygon) {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i], [xj, yj] = polygon[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The centroid of a polygon's corners (for its label). */
export function cornerCentroid(polygon) {
  let x = 0, y = 0;
  for (const [px, py] of polygon) { x += px; y += py; }
  return [x / polygon.length, y / polygon.length];
}
