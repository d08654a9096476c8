import { Field } from './field';

interface TotpFieldProps {
  value: string;
  onChange: (code: string) => void;
  hint?: string | undefined;
  error?: string | undefined;
}

/** The 6-digit second-factor code, digits only, offered to the platform's one-time-code fill. */
export function TotpField({ value, onChange, hint, error }: TotpFieldProps) {
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
          onChange={(e) => onChange(e.target.value.replace(/\D/g, ''))}
        />
      )}
    </Field>
  );
}
