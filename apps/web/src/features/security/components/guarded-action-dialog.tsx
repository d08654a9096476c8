import type { StepUpMethod } from '@card-console/shared/api/session';
import { type ReactNode, useState } from 'react';
import { Dialog } from '../../../components/dialog';
import { FormFooter } from '../../../components/form-footer';
import { apiProblem } from '../../../lib/api-error';
import { StepUpForm } from './step-up-form';

interface GuardedActionDialogProps {
  title: string;
  /** What the action does, in words. */
  children: ReactNode;
  actionLabel: string;
  /** Asked before the step-up: "Confirm it is you; the passkey is then removed." */
  stepUpIntro: string;
  /** What to press once back from the identity provider: "then press Remove again". */
  again: string;
  /** No second-factor check in the last few minutes: ask for one first, then act. */
  needsStepUp: boolean;
  methods: readonly StepUpMethod[];
  /** Does it (and closes the dialog); a refusal it throws is shown here. */
  run: () => Promise<void>;
  describeError: (error: unknown) => string;
  onClose: () => void;
}

/**
 * A change to the person's second factors: says what it does, asks for a step-up when the
 * session has none (then acts at once: the person already chose to), else for a confirming
 * press.
 */
export function GuardedActionDialog(props: GuardedActionDialogProps) {
  const { title, children, actionLabel, run, describeError, onClose } = props;
  const [methods, setMethods] = useState(props.methods);
  const [stage, setStage] = useState<'confirm' | 'step-up'>(
    props.needsStepUp ? 'step-up' : 'confirm',
  );
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const act = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await run();
    } catch (caught) {
      const stepUp = apiProblem(caught, 'step_up_required');
      if (stepUp) {
        if (stepUp.secondFactor.methods.length) setMethods(stepUp.secondFactor.methods);
        setStage('step-up');
      } else {
        setStage('confirm');
        setError(describeError(caught));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title={title} onClose={onClose}>
      <div className="stack">
        {children}
        {stage === 'step-up' ? (
          <StepUpForm
            methods={methods}
            intro={props.stepUpIntro}
            again={props.again}
            onSteppedUp={() => void act()}
            onCancel={onClose}
          />
        ) : (
          <FormFooter error={error} onCancel={onClose}>
            <button type="button" className="primary" disabled={busy} onClick={() => void act()}>
              {actionLabel}
            </button>
          </FormFooter>
        )}
      </div>
    </Dialog>
  );
}
