import { useEffect, useState } from 'react';

/**
 * An otpauth:// address as a QR code (an SVG data URL); undefined until made, or if it cannot
 * be. The library loads only here (a chunk of its own, for Security and the join page), never in
 * the first download.
 */
export function useQrCode(uri: string | undefined): string | undefined {
  const [qr, setQr] = useState<string>();
  useEffect(() => {
    setQr(undefined);
    if (!uri) return;
    let live = true;
    import('qrcode')
      .then((qrcode) => qrcode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }))
      .then((svg) => {
        if (live) setQr(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
      })
      .catch(() => {
        if (live) setQr(undefined);
      });
    return () => {
      live = false;
    };
  }, [uri]);
  return qr;
}
