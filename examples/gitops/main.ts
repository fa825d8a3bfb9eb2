import { App } from 'cdktf';
import { GitOpsStack } from './stack';

const app = new App();
new GitOpsStack(app, 'gitops');
app.synth();
