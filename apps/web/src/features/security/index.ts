// What other features may use of the security feature besides its api/ folder.
export { StepUpForm } from './components/step-up-form';
export {
  isStepUpCancelled,
  StepUpCancelled,
  type StepUpRetryOptions,
  useStepUpRetry,
} from './components/step-up-retry';
