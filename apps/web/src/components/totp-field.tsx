import { Field } from './field';

interface TotpFieldProps {
  value: string;
  onChange: (code: string) => void;
  /** Called once when typing (or pasting) makes the code six digits: the form sends itself. */
  onComplete?: ((code: string) => void) | undefined;
  hint?: string | undefined;
  error?: string | undefined;
}

/** The 6-digit second-factor code, digits only, offered to the platform's one-time-code fill. */
export function TotpField({ value, onChange, onComplete, hint, error }: TotpFieldProps) {
  return (
    <Field label="Second-factor code" hint={hint} error={error}>
      {(control) => (
        <input
          {...control}
          name="totp"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="\d{6}"
          maxLength={6}
          value={value}
          onChange={(e) => {
            const code = e.target.value.replace(/\D/g, '').slice(0, 6);
            onChange(code);
            if (onComplete && code.length === 6 && value.length !== 6) onComplete(code);
          }}
        />
      )}
    </Field>
  );
}
